/** The refusals of a slot's request queue (`slot-demand.ts`). */
import { SvcError } from '../errors'

export function busy(slot: string, max: number): SvcError {
  return new SvcError('slot.busy', `slot "${slot}" already has ${max} requests waiting (max_queue)`, {
    headers: { 'Retry-After': '2' },
  })
}

export function timedOut(slot: string, ms: number): SvcError {
  return new SvcError('slot.unavailable', `slot "${slot}" is not ready after ${Math.round(ms / 1000)} s`, {
    headers: { 'Retry-After': '5' },
  })
}

export function notLoaded(ref: string, slot: string): SvcError {
  return new SvcError('model.not_loaded', `model "${ref}" is no longer loaded in slot "${slot}"`, {
    param: 'model',
  })
}

/**
 * A load on request that memory cannot take is the server's condition, not the request's: 503 with
 * `Retry-After` (the holders' requests end, or they unload when idle), the message naming them.
 */
export function asRequestError(error: unknown): unknown {
  if (error instanceof SvcError && error.code === 'memory.insufficient')
    return new SvcError('memory.insufficient', error.message, {
      status: 503,
      param: 'model',
      headers: { 'Retry-After': '10' },
    })
  return error
}
