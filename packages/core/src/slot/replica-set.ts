/**
 * Replicas of one slot: the upstreams behind a handle with `members` (a swarm service's
 * running tasks, a remote slot's `urls`). Every round it reads the members and probes each: a replica
 * serves while its last probe passed; one that fails (or that a request could not reach, see
 * `markFailed`) is out of rotation until a probe passes again. A request with `RouteHints` (the
 * slot routes by cache) goes where `chooseReplica` says (its prefix, its session, else the least
 * loaded), and what was sent where grows each replica's `PrefixIndex`; a request without goes to the
 * healthy replica with the fewest in flight (ties take turns). When no replica has answered for
 * `downAfter` rounds in a row, `down` settles and the slot goes offline like a crashed upstream.
 *
 * Each replica is its own instance in the slot's LeaseLedger: a replica that leaves the set (its task
 * was replaced) closes there, so its leases stop counting and never touch its successor's.
 */
import type { Clock } from '../clock'
import type { UpstreamExit, UpstreamHandle, UpstreamMember } from '../slot-driver'
import type { LeaseLedger } from './lease-ledger'
import { LruMap } from './lru-map'
import { PrefixIndex } from './prefix-index'
import {
  chooseReplica,
  ROUTING_DEFAULTS,
  type RouteHints,
  type RouteReason,
  type RoutingCandidate,
  type RoutingTuning,
} from './replica-routing'

/** Sessions whose last replica a set remembers (least recently used forgotten first). */
const SESSIONS_REMEMBERED = 10_000

/** What the slot's status shows per replica. */
export interface ReplicaStatus {
  id: string
  /** Where it answers; the API shows it to admins only (null for other scopes). */
  url: string | null
  node: string | null
  healthy: boolean
  inflight: number
  /** Round trip of the last passed health probe (ms). */
  latencyMs: number | null
  checkedAt: number | null
  /** Why it is out of rotation. */
  error: string | null
  /** Requests sent to it, by why it was chosen (since it joined the set). */
  routed: Record<RouteReason, number>
  /** Requests sent to it that found a prefix of their prompt there (by svc's prefix index). */
  prefixHits: number
  /** `prefixHits` over the requests routed with a prompt to match (0–1); null before the first. */
  hitRate: number | null
  /** Why the last request sent to it was; null before the first. */
  lastRoute: RouteReason | null
}

/** One replica; its identity is its key in the lease ledger. */
export interface Replica {
  readonly member: UpstreamMember
  /** The handle as seen at this replica (its base), for the driver's probe. */
  readonly view: UpstreamHandle
  healthy: boolean
  latencyMs: number | null
  checkedAt: number | null
  error: string | null
  /** What svc sent it, by prefix: where a prompt's next turn is cheap. */
  readonly prefixes: PrefixIndex
  readonly routed: Record<RouteReason, number>
  /** Requests routed with hints (the denominator of the hit rate), and those that found a prefix. */
  hinted: number
  prefixHits: number
  lastRoute: RouteReason | null
}

export interface ReplicaSetOptions {
  handle: UpstreamHandle
  ledger: LeaseLedger<object>
  probe(view: UpstreamHandle, signal: AbortSignal): Promise<boolean>
  clock: Clock
  /** Between rounds once serving (ms). */
  intervalMs: number
  /** Rounds in a row with no healthy replica before `down` settles. */
  downAfter: number
  /** A replica joined or left, or went in or out of rotation. */
  onChange?(): void
  /** The slot's routing tuning, read per routed request (the slot file may change). Default: defaults. */
  tuning?(): RoutingTuning
}

export class ReplicaSet {
  private readonly replicas = new Map<string, Replica>()
  /** The same replicas as an array, rebuilt when the set changes: `pick` runs per request. */
  private list: Replica[] = []
  private readonly stopped = new AbortController()
  private turn = 0
  /** Each session's last replica id. */
  private readonly sessions = new LruMap<string, string>(SESSIONS_REMEMBERED)
  private resolveDown!: (exit: UpstreamExit) => void
  /** Settles once no replica answered for `downAfter` rounds (never after `stop`). */
  readonly down = new Promise<UpstreamExit>((resolve) => {
    this.resolveDown = resolve
  })

  constructor(private readonly o: ReplicaSetOptions) {}

  /** One round: reads the members, forgets those gone, probes every one. Resolves with how many are healthy. */
  async refresh(signal: AbortSignal): Promise<number> {
    const before = this.shape()
    const members = await this.o.handle.members?.(signal).catch(() => undefined)
    if (members) {
      const byId = new Map(members.map((m) => [m.id, m]))
      for (const [id, replica] of this.replicas) {
        // A member at another address (a local replica restarted on a new port) is a new replica.
        if (byId.get(id)?.base.href === replica.member.base.href) continue
        this.replicas.delete(id)
        this.o.ledger.close(replica)
      }
      for (const member of members) {
        if (this.replicas.has(member.id)) continue
        const view = Object.create(this.o.handle, { base: { value: member.base } }) as UpstreamHandle
        const replica: Replica = {
          member,
          view,
          healthy: false,
          latencyMs: null,
          checkedAt: null,
          error: 'not probed yet',
          prefixes: new PrefixIndex(),
          routed: { prefix: 0, session: 0, least_loaded: 0 },
          hinted: 0,
          prefixHits: 0,
          lastRoute: null,
        }
        this.replicas.set(member.id, replica)
        this.o.ledger.open(replica)
      }
      this.list = [...this.replicas.values()]
    }
    await Promise.all([...this.replicas.values()].map((r) => this.probeOne(r, signal)))
    if (this.shape() !== before) this.o.onChange?.()
    return this.healthy()
  }

  /** Probes in the background every `intervalMs` until `stop`. */
  start(): void {
    void (async () => {
      let downRounds = 0
      const signal = this.stopped.signal
      while (!signal.aborted) {
        await this.o.clock.sleep(this.o.intervalMs, signal).catch(() => undefined)
        if (signal.aborted) return
        downRounds = (await this.refresh(signal)) > 0 ? 0 : downRounds + 1
        if (downRounds >= this.o.downAfter && !signal.aborted) {
          this.resolveDown({ code: null, signal: null, reason: this.downReason() })
          return
        }
      }
    })()
  }

  stop(): void {
    this.stopped.abort()
  }

  /**
   * The replica for a request: by `hints` (see `chooseReplica`) when given, else the healthy one with
   * the fewest in flight; undefined when none is healthy. Counts the choice and its reason.
   */
  pick(hints?: RouteHints): Replica | undefined {
    const replica = hints ? this.route(hints) : this.leastLoaded()
    if (replica && !hints) {
      replica.routed.least_loaded++
      replica.lastRoute = 'least_loaded'
    }
    return replica
  }

  /** The healthy replica with the fewest requests in flight (ties take turns). */
  private leastLoaded(): Replica | undefined {
    const list = this.list
    let best: Replica | undefined
    let fewest = Number.POSITIVE_INFINITY
    const start = this.turn++ % Math.max(1, list.length)
    for (let i = 0; i < list.length; i++) {
      const replica = list[(start + i) % list.length]!
      if (!replica.healthy) continue
      const inflight = this.o.ledger.inflight(replica)
      if (inflight < fewest) {
        best = replica
        fewest = inflight
      }
    }
    return best
  }

  /** Cache-aware: asks `chooseReplica`, then notes what was sent where. */
  private route(hints: RouteHints): Replica | undefined {
    const list = this.list
    const candidates: RoutingCandidate[] = list.map((r) => ({
      id: r.member.id,
      healthy: r.healthy,
      inflight: this.o.ledger.inflight(r),
      matched: hints.blocks.length > 0 && r.healthy ? r.prefixes.match(hints.blocks) : 0,
    }))
    const session = hints.session
    const choice = chooseReplica({
      ...(this.o.tuning?.() ?? ROUTING_DEFAULTS),
      candidates,
      ends: hints.ends,
      sessionReplica: session === undefined ? undefined : this.sessions.get(session),
      turn: this.turn++,
    })
    if (!choice) return undefined
    const replica = list[choice.index]!
    replica.prefixes.record(hints.blocks)
    if (session !== undefined) this.sessions.set(session, replica.member.id)
    replica.routed[choice.reason]++
    replica.lastRoute = choice.reason
    if (hints.blocks.length > 0) {
      replica.hinted++
      if (choice.matched > 0) replica.prefixHits++
    }
    return replica
  }

  /** A request could not reach `replica`: out of rotation until a health probe passes again. */
  markFailed(replica: Replica, reason: string): void {
    if (!this.replicas.has(replica.member.id) || !replica.healthy) return
    replica.healthy = false
    replica.error = reason
    this.o.onChange?.()
  }

  healthy(): number {
    let n = 0
    for (const r of this.replicas.values()) if (r.healthy) n++
    return n
  }

  inflight(): number {
    let n = 0
    for (const r of this.replicas.values()) n += this.o.ledger.inflight(r)
    return n
  }

  drained(): Promise<void> {
    return Promise.all([...this.replicas.values()].map((r) => this.o.ledger.drained(r))).then(() => undefined)
  }

  /** Closes every replica in the ledger and stops probing (the set's upstream is gone). */
  close(): void {
    this.stop()
    for (const replica of this.replicas.values()) this.o.ledger.close(replica)
  }

  /** The origins of the replicas now in the set (`http://127.0.0.1:41234`). */
  origins = (): string[] => [...this.replicas.values()].map((r) => r.member.base.origin)

  status(): ReplicaStatus[] {
    return [...this.replicas.values()].map((r) => ({
      id: r.member.id,
      url: r.member.base.origin,
      node: r.member.node ?? null,
      healthy: r.healthy,
      inflight: this.o.ledger.inflight(r),
      latencyMs: r.latencyMs,
      checkedAt: r.checkedAt,
      error: r.error,
      routed: { ...r.routed },
      prefixHits: r.prefixHits,
      hitRate: r.hinted > 0 ? r.prefixHits / r.hinted : null,
      lastRoute: r.lastRoute,
    }))
  }

  /** Which replicas there are and which serve: what `onChange` reports changes of. */
  private shape(): string {
    let out = ''
    for (const r of this.list) out += `${r.member.id}:${r.healthy ? 1 : 0} `
    return out
  }

  /** Why none serves: each replica and its last error. */
  downReason(): string {
    const each = [...this.replicas.values()].map((r) => `${r.member.base.origin}: ${r.error ?? 'unhealthy'}`)
    return `no replica answers its health check (${each.join('; ') || 'no replica is running'})`
  }

  private async probeOne(replica: Replica, signal: AbortSignal): Promise<void> {
    const started = this.o.clock.now()
    const ok = await this.o.probe(replica.view, signal).catch(() => false)
    if (signal.aborted) return
    replica.checkedAt = this.o.clock.now()
    replica.healthy = ok
    if (ok) {
      replica.latencyMs = replica.checkedAt - started
      replica.error = null
    } else {
      replica.error = 'did not pass its health check'
    }
  }
}
