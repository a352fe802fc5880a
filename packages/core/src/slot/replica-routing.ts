/**
 * Which replica of a slot takes a request: the cache-aware policy (docs/scale-out.md, "Routing"),
 * as a pure function of what the replica set knows at that moment.
 *
 * Modelled on SGLang's cache-aware router: a request goes where the longest prefix of its prompt
 * probably sits in the KV cache (a match above a share of the prompt), unless that replica is
 * overloaded against the others; then, and for a prompt no replica has seen, the least loaded one
 * takes it (ties, there and between equal prefixes, take turns). A session key pins a conversation to the replica it used last, unless
 * that one is gone, unhealthy or overloaded. An unhealthy or absent replica never receives.
 */

/** How a slot with replicas spreads requests (`routing` in the slot file). */
export const ROUTING_POLICIES = ['cache', 'least-loaded'] as const
export type RoutingPolicy = (typeof ROUTING_POLICIES)[number]

/** Why a replica was chosen: what `/api/slots` and `svc_replica_requests_total` report. */
export const ROUTE_REASONS = ['prefix', 'session', 'least_loaded'] as const
export type RouteReason = (typeof ROUTE_REASONS)[number]

/**
 * What a request tells the replica choice about itself (the dispatcher computes it, only for a slot
 * with replicas and `routing = "cache"`).
 */
export interface RouteHints {
  /**
   * Chained hashes of the prompt's leading blocks (messages or input items, or fixed-size chunks of a
   * prompt): `blocks[i]` stands for blocks 0..i together, so turn N+1 of a chat starts with turn N's.
   */
  readonly blocks: readonly number[]
  /** Characters of the prompt up to the end of each block (as long as `blocks`, ascending). */
  readonly ends: readonly number[]
  /** The session key (the slot's `session_header`), when the client sent one. */
  readonly session?: string
}

/** One replica as the choice sees it. */
export interface RoutingCandidate {
  readonly id: string
  readonly healthy: boolean
  /** Requests in flight on it now. */
  readonly inflight: number
  /** Leading blocks of the request it probably holds (0: none). */
  readonly matched: number
}

/** The slot's tuning of the choice. */
export interface RoutingTuning {
  /**
   * A replica is overloaded when it has more than `slack` requests in flight beyond the least loaded
   * healthy replica: then its prefix or session no longer draws requests to it.
   */
  slack: number
  /** Share of the prompt's characters (0–1) a replica must hold for its prefix to count. */
  minMatch: number
}

/** Defaults of {@link RoutingTuning}: two requests of slack; SGLang's cache threshold is 0.3–0.5. */
export const ROUTING_DEFAULTS: RoutingTuning = { slack: 2, minMatch: 0.5 }

export interface RoutingInput extends RoutingTuning {
  /** Every replica the set has now, in a stable order (ties take turns in it). */
  readonly candidates: readonly RoutingCandidate[]
  /** The request's `RouteHints.ends` (empty: nothing to match). */
  readonly ends: readonly number[]
  /** The replica the request's session used last, if it has a session. */
  readonly sessionReplica?: string | undefined
  /** A counter the caller increments per request: where ties start looking. */
  readonly turn: number
}

export interface RoutingChoice {
  /** Index into `candidates`. */
  index: number
  reason: RouteReason
  /** The chosen replica's `matched`. */
  matched: number
}

/** The replica for a request, and why; undefined when no candidate is healthy. Pure. */
export function chooseReplica(input: RoutingInput): RoutingChoice | undefined {
  const { candidates } = input
  let least = Number.POSITIVE_INFINITY
  for (const c of candidates) if (c.healthy && c.inflight < least) least = c.inflight
  if (least === Number.POSITIVE_INFINITY) return undefined
  const limit = least + Math.max(0, input.slack)
  const open = (c: RoutingCandidate) => c.healthy && c.inflight <= limit
  if (input.sessionReplica !== undefined) {
    const index = candidates.findIndex((c) => c.id === input.sessionReplica)
    const pinned = candidates[index]
    if (pinned && open(pinned)) return { index, reason: 'session', matched: pinned.matched }
  }
  const n = candidates.length
  const start = ((input.turn % n) + n) % n
  const total = input.ends.at(-1) ?? 0
  if (total > 0) {
    let best = -1
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n
      const c = candidates[i]!
      if (!open(c) || c.matched === 0) continue
      const b = candidates[best]
      if (!b || c.matched > b.matched || (c.matched === b.matched && c.inflight < b.inflight)) best = i
    }
    const b = candidates[best]
    if (b && (input.ends[b.matched - 1] ?? 0) / total >= input.minMatch) {
      return { index: best, reason: 'prefix', matched: b.matched }
    }
  }
  let index = -1
  for (let k = 0; k < n; k++) {
    const i = (start + k) % n
    const c = candidates[i]!
    if (c.healthy && c.inflight === least) {
      index = i
      break
    }
  }
  return { index, reason: 'least_loaded', matched: candidates[index]!.matched }
}
