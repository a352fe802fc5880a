/**
 * Tokens limited to models (docs/auth.md#tokens-limited-to-models): whether a request may use the
 * model it names. The app says which names a request may send (`DispatcherOptions.allowedModels`, a
 * plain predicate: the dispatcher knows no tokens); the check runs before resolution, so a refused
 * name never loads, pulls or reaches a hosted upstream, and a limited caller learns nothing of which
 * other models exist (403, never 404 or 409).
 *
 * The rule: the name the client sent (alias, ref, slot name, hosted ref) must match. A slot's name is
 * allowed too when the model the slot holds right now matches: `primary` is what it runs, and a token
 * that may use `qwen3-8b*` may reach it through the slot that holds it. (The reverse is not true: a
 * token allowed `primary` may not name other refs, even the one `primary` holds.)
 */
import type { SlotManager } from '@svc/core'
import { SvcError } from '@svc/core'

/** Whether a model name may be used; the app's view of the caller's token. */
export type ModelAllowed = (name: string) => boolean

/**
 * Whether `name` may be used under `allowed`: the name matches, or it names a slot whose current
 * model matches. Synchronous; no I/O.
 */
export function mayUseModel(
  allowed: ModelAllowed,
  name: string,
  slots: Pick<SlotManager, 'has' | 'get'>,
): boolean {
  if (allowed(name)) return true
  if (!slots.has(name)) return false
  const held = slots.get(name).currentModel()?.id
  return held !== undefined && allowed(held)
}

/**
 * Throws 403 `auth.forbidden` naming the model when `allowed` refuses it. `model` undefined (an image
 * request without one) stands for the slot the endpoint is pinned to; with neither there is nothing to
 * check (resolution then says `model` is required).
 */
export function refuseUnallowedModel(
  allowed: ModelAllowed,
  model: string | undefined,
  pinnedSlot: string | undefined,
  slots: Pick<SlotManager, 'has' | 'get'>,
): void {
  const name = model || pinnedSlot
  if (name === undefined || mayUseModel(allowed, name, slots)) return
  throw new SvcError('auth.forbidden', `this token may not use model "${name}"`, { param: 'model' })
}
