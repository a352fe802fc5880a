/**
 * Quotas: the limits a token (or a forwarded identity) may carry, how they are written (tokens.toml,
 * the API's JSON, the CLI's `--rpm 60 --tpm 20000 --tpd 200000`, `SVC_IDENTITY_QUOTA`), and the
 * OpenAI rate-limit headers that describe them.
 */
import { remember } from '@svc/core'
import * as v from 'valibot'

export const LIMIT_NAMES = ['requests_per_minute', 'tokens_per_minute', 'tokens_per_day'] as const
export type LimitName = (typeof LIMIT_NAMES)[number]

/** Each limit is optional; a token without any is not limited. */
export type QuotaLimits = Partial<Record<LimitName, number>>

/** The short names the CLI and `SVC_IDENTITY_QUOTA` use. */
export const LIMIT_SHORT_NAMES: Readonly<Record<string, LimitName>> = {
  rpm: 'requests_per_minute',
  tpm: 'tokens_per_minute',
  tpd: 'tokens_per_day',
}

const Limit = v.pipe(
  v.number('a whole number'),
  v.integer('a whole number'),
  v.minValue(1, 'at least 1'),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'too large'),
)

/** `{requests_per_minute?, tokens_per_minute?, tokens_per_day?}`; unknown keys are refused. */
export const QuotaLimitsSchema = v.strictObject({
  requests_per_minute: v.optional(Limit),
  tokens_per_minute: v.optional(Limit),
  tokens_per_day: v.optional(Limit),
})

/** True when at least one limit is set. */
export function hasLimits(limits: QuotaLimits | null | undefined): limits is QuotaLimits {
  return (
    limits != null &&
    (limits.requests_per_minute !== undefined ||
      limits.tokens_per_minute !== undefined ||
      limits.tokens_per_day !== undefined)
  )
}

/**
 * Parses `rpm=60,tpm=20000,tpd=200000` (any subset, long names too; empty → no limits). Returns an
 * error message fit for a person on a bad entry.
 */
export function parseQuotaSpec(
  spec: string | undefined,
): { ok: true; limits: QuotaLimits } | { ok: false; error: string } {
  const limits: QuotaLimits = {}
  for (const part of (spec ?? '').split(',')) {
    const entry = part.trim()
    if (!entry) continue
    const [rawName, rawValue] = entry.split('=', 2).map((s) => s.trim())
    const name =
      LIMIT_SHORT_NAMES[rawName ?? ''] ?? (LIMIT_NAMES as readonly string[]).find((n) => n === rawName)
    if (!name) return { ok: false, error: `unknown limit "${rawName}" (use rpm, tpm or tpd)` }
    const value = Number(rawValue)
    if (!rawValue || !Number.isSafeInteger(value) || value < 1)
      return { ok: false, error: `${rawName} must be a whole number >= 1, got "${rawValue ?? ''}"` }
    limits[name as LimitName] = value
  }
  return { ok: true, limits }
}

/** How much is left of one limit, and when it resets. */
export interface LimitState {
  limit: number
  remaining: number
  /** Milliseconds until the window resets. */
  resetMs: number
}

/** What the rate-limit headers say: per-minute requests and tokens, and svc's per-day tokens. */
export interface QuotaState {
  requests?: LimitState
  tokens?: LimitState
  tokensDay?: LimitState
}

/** OpenAI's duration text for a reset: `20ms`, `12s`, `1m30s`, `3h2m0s`. */
export function resetText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`
  const total = Math.ceil(ms / 1000)
  // Whole seconds up to a day (every reset svc has) are formatted once: these go out on every answer.
  if (total > DAY_S) return secondsText(total)
  let text = SECONDS_TEXT.get(total)
  if (text === undefined) {
    text = secondsText(total)
    SECONDS_TEXT.set(total, text)
  }
  return text
}

const DAY_S = 86_400
const SECONDS_TEXT = new Map<number, string>()

function secondsText(total: number): string {
  let s = total
  const h = Math.floor(s / 3600)
  s -= h * 3600
  const m = Math.floor(s / 60)
  s -= m * 60
  if (h > 0) return `${h}h${m}m${s}s`
  if (m > 0) return `${m}m${s}s`
  return `${s}s`
}

/** A limit's text, made once per value (limits are few; the cache is dropped past 1000 values). */
function limitText(limit: number): string {
  return LIMIT_TEXT.get(limit) ?? remember(LIMIT_TEXT, limit, String(limit), 1000)
}
const LIMIT_TEXT = new Map<number, string>()

/**
 * Adds the headers for a limited caller to `head`: OpenAI's `x-ratelimit-{limit,remaining,reset}-
 * {requests,tokens}` (per minute) and, for a per-day token limit, the same trio ending in
 * `-tokens-day` (svc's own: OpenAI has no per-day header). A limit that is not set has no headers.
 * They are written straight into the answer's head, each name a constant: these go out on every
 * answer to a limited token, and building an object of their own to merge in later cost ~0.15 µs
 * more per answer (an in-process loop over the gate and the head, 2026-11-27).
 */
export function addRateLimitHeaders(head: Record<string, unknown>, state: QuotaState): void {
  const { requests: r, tokens: t, tokensDay: d } = state
  if (r) addRequestsHeaders(head, r.limit, r.remaining, r.resetMs)
  if (t) addTokensHeaders(head, t.limit, t.remaining, t.resetMs)
  if (d) addTokensDayHeaders(head, d.limit, d.remaining, d.resetMs)
}

/**
 * The `-requests` trio (the quota meter writes it from its counters, with no state object between).
 * One function per trio rather than one taking the names: a store to a name written in the code is a
 * named property store; names passed in would make each a keyed store seeing nine names.
 */
export function addRequestsHeaders(
  head: Record<string, unknown>,
  limit: number,
  remaining: number,
  resetMs: number,
) {
  head['x-ratelimit-limit-requests'] = limitText(limit)
  head['x-ratelimit-remaining-requests'] = String(Math.max(0, remaining))
  head['x-ratelimit-reset-requests'] = resetText(resetMs)
}

/** The `-tokens` trio (per minute). */
export function addTokensHeaders(
  head: Record<string, unknown>,
  limit: number,
  remaining: number,
  resetMs: number,
) {
  head['x-ratelimit-limit-tokens'] = limitText(limit)
  head['x-ratelimit-remaining-tokens'] = String(Math.max(0, remaining))
  head['x-ratelimit-reset-tokens'] = resetText(resetMs)
}

/** The `-tokens-day` trio. */
export function addTokensDayHeaders(
  head: Record<string, unknown>,
  limit: number,
  remaining: number,
  resetMs: number,
) {
  head['x-ratelimit-limit-tokens-day'] = limitText(limit)
  head['x-ratelimit-remaining-tokens-day'] = String(Math.max(0, remaining))
  head['x-ratelimit-reset-tokens-day'] = resetText(resetMs)
}
