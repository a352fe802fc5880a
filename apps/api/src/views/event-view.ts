/** Event payloads of `/api/events` as a caller may see them (see `slot-view.ts` for the rules). */
import { redactText } from './redact'

export type EventPayload = Record<string, unknown>

/** The payload for a caller: unchanged for admins; messages, file names and URLs reduced otherwise. */
export function eventFor(type: string, payload: EventPayload, admin: boolean): EventPayload {
  if (admin) return payload
  if (type === 'slot.config') {
    const file = typeof payload.file === 'string' ? payload.file : ''
    const relative = file.replace(/^.*\/(slots\/[^/]+)$/, '$1')
    const error = payload.error as { message?: string } | null | undefined
    return {
      ...payload,
      file: relative,
      error: error
        ? {
            ...error,
            message: redactText(
              String(error.message ?? '')
                .split(file)
                .join(relative),
            ),
          }
        : null,
    }
  }
  // A replica's error can quote its URL (no URLs otherwise in slot.replicas).
  if (type === 'slot.replicas' && Array.isArray(payload.replicas)) {
    return {
      ...payload,
      replicas: payload.replicas.map((r: { error?: unknown }) =>
        typeof r.error === 'string' ? { ...r, error: redactText(r.error) } : r,
      ),
    }
  }
  // Any event's `error` message (slot.transition, a model pull's failure, …) and `url`.
  if (typeof payload.error === 'string' || typeof payload.url === 'string') {
    return {
      ...payload,
      ...(typeof payload.error === 'string' ? { error: redactText(payload.error) } : {}),
      ...(typeof payload.url === 'string' ? { url: null } : {}),
    }
  }
  return payload
}
