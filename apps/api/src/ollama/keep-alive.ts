/**
 * Ollama's `keep_alive` (how long the model stays loaded after the request), read as Ollama reads
 * it: a number of seconds, or a Go duration string (`"5m"`, `"1h30m"`, `"500ms"`, `"-1m"`); 0 unloads
 * once the request is done, a negative value keeps the model loaded. svc also takes a string of a bare
 * number as seconds (`"3600"`, which Go would refuse). Anything else is a 400 naming the field.
 * Durations past Node's longest timer (~24.8 days) count as "keep loaded".
 */
import { SvcError } from '@svc/core'

/** Longest timer Node keeps (2^31-1 ms); longer ones would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)$/
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
}

/**
 * `keep_alive` in ms: undefined when absent (or null), `Infinity` for "keep loaded", 0 for "unload
 * once done". Throws 400 `request.invalid` (param `keep_alive`) for anything else.
 */
export function parseKeepAlive(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isFinite(value)) return fromMs(value * 1_000)
  if (typeof value === 'string') {
    const text = value.trim()
    if (NUMBER.test(text)) return fromMs(Number(text) * 1_000)
    if (GO_DURATION.test(text)) {
      let ms = 0
      for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit!]!
      return fromMs(text.startsWith('-') ? -ms : ms)
    }
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
