/**
 * The running upstream of a loaded slot as its leases see it: one instance (a process, a container)
 * or a replica set (a handle with `members`). It warms, routes and counts leases the same way for
 * both, so the slot owner does not care which: one instance is a key of its own in the lease ledger;
 * a replica set keys each replica (replica-set.ts).
 */

import type { Clock } from '../clock'
import { SvcError } from '../errors'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotRoutingConfig } from '../slot-config-routing'
import type { UpstreamExit, UpstreamHandle } from '../slot-driver'
import type { LeaseLedger } from './lease-ledger'
import { ROUTING_DEFAULTS, type RouteHints } from './replica-routing'
import { ReplicaSet, type ReplicaStatus } from './replica-set'
import type { Lease } from './slot-types'

export interface UpstreamBindingOptions {
  slot: string
  ledger: LeaseLedger<object>
  probe(handle: UpstreamHandle, signal: AbortSignal): Promise<boolean>
  clock: Clock
  /** Between replica health rounds once serving (ms). */
  replicaProbeMs: number
  /** Rounds with no healthy replica before the slot counts its upstream as gone. */
  replicaDownAfter: number
  /** Where `slot.replicas` goes when replicas join, leave, or go in or out of rotation. */
  bus: EventBus<SvcEvents>
  /** The slot's routing over replicas, read per request (the slot file may change it). */
  routing(): SlotRoutingConfig
}

export class UpstreamBinding {
  readonly replicas: ReplicaSet | null
  private serving = false
  /** Settles when the upstream exits, or when no replica has answered for a while. */
  readonly gone: Promise<UpstreamExit>

  constructor(
    readonly handle: UpstreamHandle,
    private readonly o: UpstreamBindingOptions,
  ) {
    this.replicas = handle.members
      ? new ReplicaSet({
          handle,
          ledger: o.ledger,
          probe: o.probe,
          clock: o.clock,
          intervalMs: o.replicaProbeMs,
          downAfter: o.replicaDownAfter,
          onChange: () => this.publish(),
          tuning: () => ({ slack: o.routing().slack, minMatch: ROUTING_DEFAULTS.minMatch }),
        })
      : null
    this.gone = this.replicas ? Promise.race([handle.exited, this.replicas.down]) : handle.exited
  }

  /** The warm-up probe: the upstream's health, or (replicas) one round that finds at least one healthy. */
  async probe(signal: AbortSignal): Promise<boolean> {
    if (this.replicas) return (await this.replicas.refresh(signal)) > 0
    return this.o.probe(this.handle, signal)
  }

  /** Starts taking leases (once warm), and for replicas the background health rounds. */
  open(): void {
    this.serving = true
    if (this.replicas) this.replicas.start()
    else this.o.ledger.open(this.handle)
  }

  /**
   * A lease on the upstream, or on a healthy replica: by `hints` when the slot routes by cache,
   * else the one with the fewest in flight.
   */
  take(model: ModelEntry, hints?: RouteHints): Lease {
    const key = this.handle.apiKey !== undefined ? { apiKey: this.handle.apiKey } : {}
    if (!this.replicas)
      return { base: this.handle.base, model, ...key, release: this.o.ledger.take(this.handle) }
    const replicas = this.replicas
    const replica = replicas.pick(hints && this.o.routing().policy === 'cache' ? hints : undefined)
    if (!replica) {
      throw new SvcError('upstream.unavailable', `slot ${this.o.slot}: ${replicas.downReason()}`)
    }
    return {
      base: replica.member.base,
      model,
      ...key,
      release: this.o.ledger.take(replica),
      fail: (reason) => replicas.markFailed(replica, reason),
    }
  }

  inflight(): number {
    return this.replicas ? this.replicas.inflight() : this.o.ledger.inflight(this.handle)
  }

  drained(): Promise<void> {
    return this.replicas ? this.replicas.drained() : this.o.ledger.drained(this.handle)
  }

  /**
   * Stops the upstream (polite, then forceful after `graceMs`), then {@link close}s it. First
   * `upstream.stopping`, so the connections held open to it close before it is asked to exit.
   */
  async stop(graceMs: number): Promise<void> {
    const origins = this.replicas ? this.replicas.origins() : [this.handle.base.origin]
    this.o.bus.emit('upstream.stopping', { slot: this.o.slot, origins })
    await this.handle.stop(graceMs)
    this.close()
  }

  /**
   * An unload's end of it: waits for its in-flight requests (at most `drainMs`), then stops it; the
   * leases still out then end with it.
   */
  async retire(o: { drainMs: number; graceMs: number }): Promise<void> {
    if (this.inflight() > 0) {
      const timeout = new AbortController()
      await Promise.race([
        this.drained(),
        this.o.clock.sleep(o.drainMs, timeout.signal).catch(() => undefined),
      ])
      timeout.abort()
    }
    await this.stop(o.graceMs)
  }

  /** Its leases stop counting (their upstream is gone) and replica probing stops. Idempotent. */
  close(): void {
    this.serving = false
    if (this.replicas) this.replicas.close()
    else this.o.ledger.close(this.handle)
  }

  status(): ReplicaStatus[] | null {
    return this.replicas?.status() ?? null
  }

  /** `slot.replicas`, while serving (warm-up rounds are the slot's transitions to tell). */
  private publish(): void {
    if (!this.serving || !this.replicas) return
    const replicas = this.replicas
      .status()
      .map(({ id, node, healthy, error }) => ({ id, node, healthy, error }))
    this.o.bus.emit('slot.replicas', { slot: this.o.slot, at: this.o.clock.now(), replicas })
  }
}
