import type { ModelEntry } from '@svc/core'
import type { SlotRoute } from './dispatch-types'
import type { EndpointName } from './endpoints'

/** Whether the slot's translator takes this request (its endpoint, and its own say when it has one). */
export async function translates(
  translate: NonNullable<SlotRoute['translate']>,
  endpoint: EndpointName,
  model: ModelEntry,
  body: Record<string, unknown>,
): Promise<boolean> {
  if (!translate.endpoints.includes(endpoint)) return false
  return translate.appliesTo ? await translate.appliesTo({ endpoint, model, body }) : true
}
