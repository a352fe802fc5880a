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
import { IncomingMessage, type ServerResponse } from 'node:http'
import {
  addRateLimitHeaders,
  hasLimits,
  type LimitName,
  type LimitState,
  type Principal,
  type QuotaLimits,
  type QuotaMeter,
  type QuotaState,
} from '@svc/auth'
import { remember, SvcError } from '@svc/core'
import { addResponseHeaders, type HeaderAdder, writeError } from '@svc/dispatcher'
import { identityKey, tokenKey, type UsageSubject } from './usage-recorder'

export const ON_BEHALF_HEADER = 'x-svc-user'
const MAX_IDENTITY = 254

export interface QuotaGateOptions {
  meter: QuotaMeter
  /** A token's limits (the token store's record, in memory). */
  limitsOf(tokenId: string): QuotaLimits | undefined
  /** `SVC_IDENTITY_QUOTA`: the quota of every forwarded identity; absent: people are not limited. */
  identityLimits?: QuotaLimits
  /** Told of each refusal of a token over its own quota (for `svc_quota_refusals_total`). */
  onTokenRefused?(tokenId: string, limit: LimitName): void
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

/**
 * The servers' request class (`createServer({ IncomingMessage })`): every request has the subject's
 * slot from the start, so counted and uncounted requests share one shape for V8 (as
 * ResponseWithAddedHeaders in @svc/dispatcher does for responses).
 */
export class CountedRequest extends IncomingMessage {
  [SUBJECT]: UsageSubject | undefined = undefined
}

const LIMIT_TEXT = {
  requests_per_minute: 'requests per minute',
  tokens_per_minute: 'tokens per minute',
  tokens_per_day: 'tokens per day (UTC)',
} as const

export function createQuotaGate(options: QuotaGateOptions): QuotaGate {
  const { meter } = options
  const people = hasLimits(options.identityLimits) ? options.identityLimits : undefined
  // One header writer per limited caller, made once and kept while its limits stay the same object
  // (the token store replaces the object when an admin changes them): nothing is allocated for it per
  // request. It writes what is left when the answer's head goes out.
  const writers = new Map<string, { limits: QuotaLimits; add: HeaderAdder }>()
  const writerFor = (key: string, limits: QuotaLimits): HeaderAdder => {
    const w = writers.get(key)
    if (w?.limits === limits) return w.add
    return remember(writers, key, { limits, add: (head) => meter.addHeaders(head, key, limits) }).add
  }

  return {
    admit(principal, req, res, requestId, refuse = writeError) {
      const subject = subjectFor(principal, req)
      if (subject === NOBODY) return true
      ;(req as Counted)[SUBJECT] = subject
      const tokenLimits = subject.token ? options.limitsOf(subject.token) : undefined
      const byToken = hasLimits(tokenLimits) ? tokenKey(subject.token) : undefined
      const byPerson = people && subject.identity ? identityKey(subject.identity) : undefined
      if (byToken === undefined && byPerson === undefined) return true
      // Into the dispatcher's own head, not res.setHeader: that would send Node down its slow path.
      addResponseHeaders(
        res,
        byPerson === undefined
          ? writerFor(byToken!, tokenLimits!)
          : byToken === undefined
            ? writerFor(byPerson, people!)
            : (head) =>
                addRateLimitHeaders(
                  head,
                  tighter(meter.state(byToken, tokenLimits!), meter.state(byPerson, people!)),
                ),
      )
      const byTokenRefusal = byToken !== undefined && refusalOf(byToken, tokenLimits!, 'token')
      if (byTokenRefusal) options.onTokenRefused?.(subject.token, byTokenRefusal.param as LimitName)
      const refusal = byTokenRefusal || (byPerson !== undefined && refusalOf(byPerson, people!, 'person'))
      if (refusal) {
        refuse(res, refusal, requestId)
        return false
      }
      if (byToken !== undefined) meter.admit(byToken)
      if (byPerson !== undefined) meter.admit(byPerson)
      return true
    },
    subjectOf: (req) => (req as Counted)[SUBJECT] ?? NOBODY,
  }

  /** The 429 for `key` over one of its `limits`, if it is. */
  function refusalOf(key: string, limits: QuotaLimits, whose: 'token' | 'person'): SvcError | undefined {
    const refusal = meter.check(key, limits)
    if (!refusal) return undefined
    const retryAfter = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))
    return new SvcError(
      'quota.exceeded',
      `this ${whose}'s quota of ${refusal.value} ${LIMIT_TEXT[refusal.limit]} is used up; retry in ${retryAfter} s`,
      { param: refusal.limit, headers: { 'Retry-After': String(retryAfter) } },
    )
  }
}

// The subject of a token acting for nobody, or of a forwarded identity, made once per caller: these
// run on every request, and the object lives as long as the request (past a young-generation
// collection it is copied to the old one).
const TOKEN_SUBJECTS = new Map<string, UsageSubject>()
const PERSON_SUBJECTS = new Map<string, UsageSubject>()

function subjectFor(principal: Principal, req: IncomingMessage): UsageSubject {
  if (principal.kind === 'proxy') return cachedSubject(PERSON_SUBJECTS, principal.email, '', principal.email)
  if (principal.kind !== 'token') return NOBODY
  const named = req.headers[ON_BEHALF_HEADER]
  const person = typeof named === 'string' ? named.trim() : ''
  const identity = person && person.length <= MAX_IDENTITY && !/\p{C}/u.test(person) ? person : ''
  if (identity) return { token: principal.tokenId, identity }
  return cachedSubject(TOKEN_SUBJECTS, principal.tokenId, principal.tokenId, '')
}

function cachedSubject(cache: Map<string, UsageSubject>, key: string, token: string, identity: string) {
  return cache.get(key) ?? remember(cache, key, Object.freeze({ token, identity }))
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
