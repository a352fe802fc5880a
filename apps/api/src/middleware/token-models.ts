/**
 * Tokens limited to models (docs/auth.md#tokens-limited-to-models), on the API's side: the raw paths
 * (`/v1` inference, the Ollama API) note on the request which names its token may use, when it is
 * limited; the dispatcher asks for it (`allowedModelsOf`, its `allowedModels` option) and refuses the
 * rest before resolution (@svc/dispatcher `model-access.ts`, which also holds the rule for slot
 * names). The listings (`/v1/models`, `/api/tags`) keep what `mayList` allows.
 *
 * A token without `models` costs nothing new: `noteAllowedModels` reads one field of its principal
 * and writes nothing; the dispatcher reads one field of the request.
 */
import type { IncomingMessage } from 'node:http'
import type { Principal } from '@svc/auth'
import type { SlotManager } from '@svc/core'
import { type ModelAllowed, mayUseModel } from '@svc/dispatcher'
import { CountedRequest } from '../usage/quota-gate'

const ALLOWED = Symbol('svc.allowed-models')
type Noted = IncomingMessage & { [ALLOWED]?: ModelAllowed | undefined }

/**
 * The servers' request class (new-server.ts): svc's per-request slots from the start (the usage
 * subject, and here the names a limited token may use), so limited and unlimited callers' requests
 * keep one shape for V8.
 */
export class SvcRequest extends CountedRequest {
  [ALLOWED]: ModelAllowed | undefined = undefined
}

/** The names `principal` may use, or undefined for every model (a token without `models`, anyone else). */
export function allowedModelsFor(principal: Principal | undefined): ModelAllowed | undefined {
  return principal?.kind === 'token' ? principal.models?.matches : undefined
}

/** Notes on `req` what its caller may use (only when limited: nothing is written otherwise). */
export function noteAllowedModels(req: IncomingMessage, principal: Principal): void {
  const allowed = allowedModelsFor(principal)
  if (allowed) (req as Noted)[ALLOWED] = allowed
}

/** What `noteAllowedModels` noted: undefined for every model. The dispatcher's `allowedModels`. */
export function allowedModelsOf(req: IncomingMessage): ModelAllowed | undefined {
  return (req as Noted)[ALLOWED]
}

/**
 * Whether a listing shows the entry `id` to `principal`: every entry to a caller not limited; to a
 * limited token, the names it may send (a slot's name when its model matches too).
 */
export function mayList(
  principal: Principal | undefined,
  id: string,
  slots: Pick<SlotManager, 'has' | 'get'>,
): boolean {
  const allowed = allowedModelsFor(principal)
  return allowed === undefined || mayUseModel(allowed, id, slots)
}
