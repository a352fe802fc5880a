/**
 * Ollama's `keep_alive` (how long the model stays loaded after the request), read as Ollama reads
 * it: a number of seconds, or a Go duration string (`"5m"`, `"1h30m"`, `"500ms"`, `"-1m"`); 0 unloads
 * once the request is done, a negative value keeps the model loaded. svc also takes a string of a bare
 * number as seconds (`"3600"`, which Go would refuse). Anything else is a 400 naming the field.
 * Durations past Node's longest timer (~24.8 days) count as "keep loaded".
 */
import { parseDurationMs, SvcError } from '@svc/core'

/** Longest timer Node keeps (2^31-1 ms); longer ones would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * `keep_alive` in ms: undefined when absent (or null), `Infinity` for "keep loaded", 0 for "unload
 * once done". Throws 400 `request.invalid` (param `keep_alive`) for anything else.
 */
export function parseKeepAlive(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isFinite(value)) return fromMs(value * 1_000)
  if (typeof value === 'string') {
    // The sign is Ollama's ("-1m": keep loaded); the magnitude is a duration as svc reads any.
    const text = value.trim()
    const ms = parseDurationMs(text.replace(/^[-+]/, ''))
    if (ms !== undefined) return fromMs(text.startsWith('-') ? -ms : ms)
  }
  throw new SvcError(
    'request.invalid',
    `keep_alive must be a duration ("5m", "1h30m"), a number of seconds, 0 (unload once done) or negative (keep loaded); got ${JSON.stringify(value)?.slice(0, 60)}`,
    { param: 'keep_alive' },
  )
}

function fromMs(ms: number): number {
  if (ms < 0 || ms >= MAX_TIMER_MS) return Number.POSITIVE_INFINITY
  return Math.round(ms)
}
