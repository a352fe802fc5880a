/**
 * The request side of a slot: requests take leases on its running upstream and give them back. The
 * leases count per upstream instance (`lease-ledger.ts`), so a crash or an unload's end closes the
 * instance and its late releases change nothing. Here the count meets the state table: the first
 * lease moves the slot to `serving`, the last release back to `idle`; a request for a slot that is
 * still loading waits (bounded) for `ready`.
 */

import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { UpstreamHandle } from '../slot-driver'
import { LEASABLE_STATES } from '../slot-states'
import { LeaseLedger } from './lease-ledger'
import type { SlotStateCell } from './slot-state-cell'
import type { Lease, SlotAcquireOptions } from './slot-types'
import { UpstreamBinding } from './upstream-binding'
import { waitForLeasable } from './wait'

export interface SlotLeasesOptions {
  /** The slot's current config (its name, and its routing over replicas). */
  config(): SlotConfig
  cell: SlotStateCell
  bus: EventBus<SvcEvents>
  clock: Clock
  /** The slot's current driver's health probe (the driver changes on reconfigure). */
  probe(handle: UpstreamHandle, signal: AbortSignal): Promise<boolean>
  replicaProbeMs: number
  replicaDownAfter: number
}

export class SlotLeases {
  /** Leases per upstream instance (per replica): a release only ever changes its own instance's count. */
  private readonly ledger: LeaseLedger<object>

  constructor(private readonly o: SlotLeasesOptions) {
    this.ledger = new LeaseLedger<object>({
      onIdle: () => {
        if (o.cell.state === 'serving') o.cell.transition('idle')
      },
    })
  }

  /** Requests in flight over every open instance. */
  inflight(): number {
    return this.ledger.inflight()
  }

  /** A running upstream (one instance or a replica set) whose leases count here. */
  bind(handle: UpstreamHandle): UpstreamBinding {
    return new UpstreamBinding(handle, {
      slot: this.o.config().name,
      ledger: this.ledger,
      probe: (h, signal) => this.o.probe(h, signal),
      clock: this.o.clock,
      replicaProbeMs: this.o.replicaProbeMs,
      replicaDownAfter: this.o.replicaDownAfter,
      bus: this.o.bus,
      routing: () => this.o.config().routing,
    })
  }

  /**
   * A lease on `upstream()` for `model()`: at once when the slot is ready/serving/idle; waits (bounded
   * by `timeoutMs`, cancelled by `signal`) while `isPending()`. See {@link waitForLeasable}. `hints`
   * choose among replicas (see `UpstreamBinding.take`).
   */
  async acquire(
    slot: {
      upstream(): UpstreamBinding | null
      model(): ModelEntry | null
      isPending(): boolean
    },
    options: SlotAcquireOptions,
  ): Promise<Lease> {
    const cell = this.o.cell
    const isLeasable = () => cell.in(LEASABLE_STATES) && slot.upstream() !== null
    // A ready slot (every request but those that meet a load) takes its lease without waiting.
    if (!isLeasable()) {
      await waitForLeasable(
        {
          slot: this.o.config().name,
          bus: this.o.bus,
          clock: this.o.clock,
          isLeasable,
          isPending: slot.isPending,
        },
        options,
      )
    }
    const lease = slot.upstream()!.take(slot.model()!, options.hints) // throws when no replica is healthy
    if (cell.state !== 'serving') cell.transition('serving')
    return lease
  }
}
