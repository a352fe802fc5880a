/**
 * The quota check on the inference path, after auth: who the request counts for (its usage
 * subject), whether that subject is over a limit (429 `quota.exceeded` with `Retry-After`), and the
 * rate-limit headers on every answer to a limited caller. Memory only: a Map lookup in the token
 * store and in the meter.
 *
 * - A token's limits are its own (`[token.limits]` in tokens.toml).
 * - A forwarded identity (the proxy's `X-Forwarded-Email`) gets the default quota for people
 *   (`SVC_IDENTITY_QUOTA`). A token may name the person it acts for with `X-Svc-User` (the chat app
 *   does): the request then counts for both and must pass both quotas. Naming a person can only add
 *   a limit, never lift the token's own.
 * - With both limited, each header says what is left of the tighter of the two.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  addRateLimitHeaders,
  hasLimits,
  type LimitState,
  type Principal,
  type QuotaLimits,
  type QuotaMeter,
  type QuotaState,
} from '@svc/auth'
import { SvcError } from '@svc/core'
import { addResponseHeaders, writeError } from '@svc/dispatcher'
import { identityKey, tokenKey, type UsageSubject } from './usage-recorder'

export const ON_BEHALF_HEADER = 'x-svc-user'
const MAX_IDENTITY = 254

export interface QuotaGateOptions {
  meter: QuotaMeter
  /** A token's limits (the token store's record, in memory). */
  limitsOf(tokenId: string): QuotaLimits | undefined
  /** `SVC_IDENTITY_QUOTA`: the quota of every forwarded identity; absent: people are not limited. */
  identityLimits?: QuotaLimits
}

/** Writes a refusal in the shape of the surface the request came in on (`/v1`: svc's; Ollama's own). */
export type RefusalWriter = (res: ServerResponse, error: SvcError, requestId: string) => unknown

export interface QuotaGate {
  /**
   * Decides and counts; writes the 429 (with `refuse`, svc's error body by default) and answers false
   * when over a limit.
   */
  admit(
    principal: Principal,
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    refuse?: RefusalWriter,
  ): boolean
  /** Who `req` counts for (set by `admit`; a request that never passed it counts for nobody). */
  subjectOf(req: IncomingMessage): UsageSubject
}

const NOBODY: UsageSubject = Object.freeze({ token: '', identity: '' })

/**
 * Who a request counts for, kept on the request itself: a WeakMap entry per request (an ephemeron the
 * garbage collector must trace) cost measurably more on the hot path than one property.
 */
const SUBJECT = Symbol('svc.usage-subject')
type Counted = IncomingMessage & { [SUBJECT]?: UsageSubject }

const LIMIT_TEXT = {
  requests_per_minute: 'requests per minute',
  tokens_per_minute: 'tokens per minute',
  tokens_per_day: 'tokens per day (UTC)',
} as const

export function createQuotaGate(options: QuotaGateOptions): QuotaGate {
  const { meter } = options
  const people = hasLimits(options.identityLimits) ? options.identityLimits : undefined

  return {
    admit(principal, req, res, requestId, refuse = writeError) {
      const subject = subjectFor(principal, req)
      if (subject === NOBODY) return true
      ;(req as Counted)[SUBJECT] = subject
      const tokenLimits = subject.token ? options.limitsOf(subject.token) : undefined
      const checks: [string, QuotaLimits, 'token' | 'person'][] = []
      if (hasLimits(tokenLimits)) checks.push([tokenKey(subject.token), tokenLimits, 'token'])
      if (people && subject.identity) checks.push([identityKey(subject.identity), people, 'person'])
      if (checks.length === 0) return true
      for (const [key, limits, whose] of checks) {
        const refusal = meter.check(key, limits)
        if (!refusal) continue
        setHeaders(res, checks)
        const retryAfter = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))
        const error = new SvcError(
          'quota.exceeded',
          `this ${whose}'s quota of ${refusal.value} ${LIMIT_TEXT[refusal.limit]} is used up; retry in ${retryAfter} s`,
          { param: refusal.limit, headers: { 'Retry-After': String(retryAfter) } },
        )
        refuse(res, error, requestId)
        return false
      }
      for (const [key] of checks) meter.admit(key)
      setHeaders(res, checks)
      return true
    },
    subjectOf: (req) => (req as Counted)[SUBJECT] ?? NOBODY,
  }

  function setHeaders(res: ServerResponse, checks: [string, QuotaLimits, string][]) {
    let state: QuotaState = meter.state(checks[0]![0], checks[0]![1])
    for (let i = 1; i < checks.length; i++) state = tighter(state, meter.state(checks[i]![0], checks[i]![1]))
    // Into the dispatcher's own head, not res.setHeader: that would send Node down its slow path.
    addResponseHeaders(res, (head) => addRateLimitHeaders(head, state))
  }
}

function subjectFor(principal: Principal, req: IncomingMessage): UsageSubject {
  if (principal.kind === 'proxy') return { token: '', identity: principal.email }
  if (principal.kind !== 'token') return NOBODY
  const named = req.headers[ON_BEHALF_HEADER]
  const person = typeof named === 'string' ? named.trim() : ''
  const identity = person && person.length <= MAX_IDENTITY && !/\p{C}/u.test(person) ? person : ''
  return { token: principal.tokenId, identity }
}

function tighter(a: QuotaState, b: QuotaState): QuotaState {
  const pick = (x?: LimitState, y?: LimitState) => (!x ? y : !y ? x : y.remaining < x.remaining ? y : x)
  const out: QuotaState = {}
  const requests = pick(a.requests, b.requests)
  const tokens = pick(a.tokens, b.tokens)
  const tokensDay = pick(a.tokensDay, b.tokensDay)
  if (requests) out.requests = requests
  if (tokens) out.tokens = tokens
  if (tokensDay) out.tokensDay = tokensDay
  return out
}
