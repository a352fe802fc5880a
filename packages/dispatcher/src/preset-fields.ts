/**
 * A preset's request fields on a request's JSON body, for the slot send (`send-to-slot.ts`) and the
 * in-process caller (`call.ts`, the Ollama API's path to the engine). `model` is what the fields are
 * looked up by: the name the client sent (an alias, a variant, a ref), or, when it named a slot, the
 * model that slot holds. With no preset for it (and no `*` with fields) the answer is undefined and
 * the body is not copied.
 */
import type { Endpoint } from '@svc/core'
import type { RequestPresets } from './dispatch-types'

export function presetFields(
  presets: RequestPresets | undefined,
  model: string | undefined,
  endpoint: Endpoint,
  body: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!presets || !body || model === undefined) return undefined
  return presets.applyRequestFields(model, endpoint, body)
}
