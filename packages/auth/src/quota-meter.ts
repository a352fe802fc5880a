/**
 * The quota counters, in memory: checking a quota is a Map lookup and a few comparisons, no I/O.
 *
 * - Per-minute limits use a fixed window per caller that opens with its first request and lasts a
 *   minute; the next request after it ends opens a new one. `x-ratelimit-reset-*` is the time left in
 *   the window.
 * - Requests are counted when admitted, so a requests-per-minute limit is exact however many requests
 *   run at once. Tokens are known only when an answer ends: a request is admitted while the caller is
 *   under its token limit at the start, so with N requests in flight the tokens used may pass the
 *   limit by what those N requests use (the documented bound).
 * - The per-day limit counts tokens per UTC day (reset at 00:00 UTC). The app seeds today's total
 *   from the usage ledger when it starts, so a restart does not hand out a fresh day; per-minute
 *   windows start empty after a restart.
 */
import {
  addRequestsHeaders,
  addTokensDayHeaders,
  addTokensHeaders,
  type LimitName,
  type QuotaLimits,
  type QuotaState,
} from './quota'

export interface QuotaRefusal {
  limit: LimitName
  /** The limit's value, for the error message. */
  value: number
  retryAfterMs: number
}

export interface QuotaMeter {
  /** The limit `key` is over now, if any (nothing counted). */
  check(key: string, limits: QuotaLimits): QuotaRefusal | undefined
  /** Counts one admitted request in the caller's minute window. */
  admit(key: string): void
  /** Adds the tokens an answer used (to the current minute window and to today). */
  spend(key: string, tokens: number): void
  /** Sets today's token total (from the ledger at start; what is spent later adds to it). */
  seedDay(key: string, tokens: number): void
  /** What is left of each limit that is set, for the rate-limit headers. */
  state(key: string, limits: QuotaLimits): QuotaState
  /**
   * The rate-limit headers of `state` written into `head` as they stand now, with no state object
   * between (the gate's path for a caller with one quota: it runs for every answer to one).
   */
  addHeaders(head: Record<string, unknown>, key: string, limits: QuotaLimits): void
}

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

interface Account {
  windowStart: number
  requests: number
  tokens: number
  day: number
  dayTokens: number
}

export function createQuotaMeter(options: { clock?: () => number } = {}): QuotaMeter {
  const clock = options.clock ?? Date.now
  const accounts = new Map<string, Account>()

  /** The caller's account with its windows rolled forward to `now`. */
  function account(key: string, now: number): Account {
    let a = accounts.get(key)
    if (!a) {
      a = { windowStart: now, requests: 0, tokens: 0, day: dayOf(now), dayTokens: 0 }
      accounts.set(key, a)
      return a
    }
    if (now - a.windowStart >= MINUTE_MS) {
      a.windowStart = now
      a.requests = 0
      a.tokens = 0
    }
    const day = dayOf(now)
    if (day !== a.day) {
      a.day = day
      a.dayTokens = 0
    }
    return a
  }

  return {
    check(key, limits) {
      const now = clock()
      const a = account(key, now)
      const minuteLeft = a.windowStart + MINUTE_MS - now
      const rpm = limits.requests_per_minute
      if (rpm !== undefined && a.requests >= rpm)
        return { limit: 'requests_per_minute', value: rpm, retryAfterMs: minuteLeft }
      const tpm = limits.tokens_per_minute
      if (tpm !== undefined && a.tokens >= tpm)
        return { limit: 'tokens_per_minute', value: tpm, retryAfterMs: minuteLeft }
      const tpd = limits.tokens_per_day
      if (tpd !== undefined && a.dayTokens >= tpd)
        return { limit: 'tokens_per_day', value: tpd, retryAfterMs: (a.day + 1) * DAY_MS - now }
      return undefined
    },
    admit(key) {
      account(key, clock()).requests++
    },
    spend(key, tokens) {
      if (!(tokens > 0)) return
      const a = account(key, clock())
      a.tokens += tokens
      a.dayTokens += tokens
    },
    seedDay(key, tokens) {
      account(key, clock()).dayTokens = tokens
    },
    state(key, limits) {
      const state: QuotaState = {}
      eachLimit(state, account, clock(), key, limits, TO_STATE)
      return state
    },
    addHeaders(head, key, limits) {
      eachLimit(head, account, clock(), key, limits, TO_HEADERS)
    },
  }
}

/** Where each limit that is set goes: `(target, limit, remaining, resetMs)`, one per trio. */
type Put<T> = (target: T, limit: number, remaining: number, resetMs: number) => void
type Puts<T> = readonly [requests: Put<T>, tokens: Put<T>, tokensDay: Put<T>]

const TO_STATE: Puts<QuotaState> = [
  (s, limit, remaining, resetMs) => {
    s.requests = { limit, remaining, resetMs }
  },
  (s, limit, remaining, resetMs) => {
    s.tokens = { limit, remaining, resetMs }
  },
  (s, limit, remaining, resetMs) => {
    s.tokensDay = { limit, remaining, resetMs }
  },
]
const TO_HEADERS: Puts<Record<string, unknown>> = [addRequestsHeaders, addTokensHeaders, addTokensDayHeaders]

/**
 * What is left of each limit of `limits` that is set, and when it resets, handed to `put` (the one
 * place that works it out, for the state object and for the headers written straight from it).
 */
function eachLimit<T>(
  target: T,
  account: (key: string, now: number) => Account,
  now: number,
  key: string,
  limits: QuotaLimits,
  put: Puts<T>,
): void {
  const a = account(key, now)
  const minuteLeft = a.windowStart + MINUTE_MS - now
  const rpm = limits.requests_per_minute
  if (rpm !== undefined) put[0](target, rpm, rpm - a.requests, minuteLeft)
  const tpm = limits.tokens_per_minute
  if (tpm !== undefined) put[1](target, tpm, tpm - a.tokens, minuteLeft)
  const tpd = limits.tokens_per_day
  if (tpd !== undefined) put[2](target, tpd, tpd - a.dayTokens, (a.day + 1) * DAY_MS - now)
}

function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS)
}
