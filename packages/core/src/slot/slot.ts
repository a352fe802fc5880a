/**
 * One slot: the single owner of every change to it (docs/architecture.md, "The slot lifecycle").
 *
 * Callers ask for outcomes (`load`, `unload`, `acquire`) and never check state first. The parts, each readable
 * alone: the state and its table (`slot-state-cell.ts`), the load/unload queue that runs one change at a time
 * and cancels a superseded load (`load-queue.ts`), lease accounting per upstream instance (`lease-ledger.ts`,
 * through `upstream-binding.ts`), and the restart policy (`restart-backoff.ts`). This file is the sequence
 * that ties them: load (pull, start, warm), unload (drain, stop), and a crash seen on the upstream's `exited`.
 */
import { SvcError } from '../errors'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { MemoryUse, SlotDriver } from '../slot-driver'
import { LEASABLE_STATES, PENDING_STATES } from '../slot-states'
import { loadKey } from './load-key'
import { Cancelled, LoadQueue } from './load-queue'
import { RestartBackoff } from './restart-backoff'
import { SlotLeases } from './slot-leases'
import { SlotStateCell } from './slot-state-cell'
import { type Lease, SLOT_DEFAULTS, type SlotOptions, type SlotSnapshot } from './slot-types'
import type { UpstreamBinding } from './upstream-binding'
import { warmUp } from './warm'

export type { Lease, SlotOptions, SlotSnapshot } from './slot-types'

export class Slot {
  private config: SlotConfig
  private driver: SlotDriver
  /** State, model, last error and progress; the only place the state changes. */
  private readonly cell: SlotStateCell
  /** The running upstream (one instance or a replica set) and where its leases go. */
  private upstream: UpstreamBinding | null = null
  private readyAt = 0
  /** Requests' leases on the upstream, and the serving ⇄ idle moves they cause. */
  private readonly leases: SlotLeases
  private readonly restarts: RestartBackoff
  private readonly queue = new LoadQueue<SlotSnapshot>()
  private readonly o: Required<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>> & SlotOptions

  constructor(options: SlotOptions) {
    this.o = { ...SLOT_DEFAULTS, ...options }
    this.config = options.config
    this.driver = options.driver
    const { bus, clock } = options
    this.cell = new SlotStateCell({ slot: options.config.name, bus, clock })
    this.leases = new SlotLeases({
      config: () => this.config,
      cell: this.cell,
      bus,
      clock,
      probe: (h, signal) => this.driver.probe(h, signal),
      replicaProbeMs: this.o.replicaProbeMs,
      replicaDownAfter: this.o.replicaDownAfter,
    })
    this.restarts = new RestartBackoff({
      slot: options.config.name,
      bus,
      clock,
      baseDelayMs: this.o.restartBaseDelayMs,
      maxDelayMs: this.o.restartMaxDelayMs,
      resetMs: this.o.restartResetMs,
    })
  }

  get name(): string {
    return this.config.name
  }

  snapshot(): SlotSnapshot {
    return {
      name: this.config.name,
      provider: this.config.provider,
      backend: this.config.backend ?? null,
      runtime: this.config.runtime ?? null,
      state: this.cell.state,
      model: this.cell.model?.id ?? null,
      inflight: this.leases.inflight(),
      lastError: this.cell.lastError,
      since: this.cell.since,
      progress: this.cell.progress,
      restarts: this.restarts.count,
      upstream: this.upstream
        ? { base: this.upstream.handle.base.origin, ...this.upstream.handle.describe() }
        : null,
      replicas: this.upstream?.status() ?? null,
    }
  }

  /** The model the slot holds or is about to hold (a queued load or a pending restart). */
  currentModel(): ModelEntry | null {
    return this.cell.model ?? this.restarts.model
  }

  /**
   * The model the slot's memory is spoken for by: the one being loaded (a swap's new model), else the
   * one it holds, else the one a pending restart brings back. Null when it will hold nothing.
   */
  targetModel(): ModelEntry | null {
    return this.queue.loadingModel ?? this.cell.model ?? this.restarts.model
  }

  /** What the running upstream uses in memory now (undefined when not running or not measurable). */
  async memoryUse(): Promise<MemoryUse | undefined> {
    return (await this.upstream?.handle.memoryUse?.().catch(() => undefined)) ?? undefined
  }

  /**
   * Unloads the slot if, and only if, it is idle right now: ready or idle, no request in flight,
   * nothing queued. Decided and begun synchronously (the slot is `unloading` when this returns), so no
   * request can take a lease in between. Returns the unload, or undefined when the slot is busy.
   */
  evictIfIdle(): Promise<SlotSnapshot> | undefined {
    const idle = this.cell.in(['ready', 'idle'])
    if (!idle || this.leases.inflight() > 0 || !this.queue.idle || this.restarts.pending) return undefined
    this.cell.transition('unloading')
    return this.unload()
  }

  /** Whether a request that arrives now would get an upstream eventually (loading, restarting). */
  isPending(): boolean {
    return this.queue.loadingModel !== null || this.restarts.pending || this.cell.in(PENDING_STATES)
  }

  logs = (): string[] => this.upstream?.handle.logs() ?? []

  /** The running upstream's address and key, for svc's own requests to it (metrics); never shown. */
  upstreamAccess = (): { base: URL; apiKey?: string } | undefined => this.upstream?.handle

  /** New config (and driver) for the next load; the running upstream is left alone. */
  reconfigure(config: SlotConfig, driver: SlotDriver): void {
    this.config = config
    this.driver = driver
  }

  /**
   * Loads `model` and resolves once the slot is `ready` with it (at once when it already is).
   * Concurrent loads of the same model share one upstream; a load of another model is a swap
   * (cancel/unload, then load). Rejects with the failure, which also stays as `lastError`.
   */
  load(model: ModelEntry): Promise<SlotSnapshot> {
    this.restarts.cancel()
    return this.startLoad(model, false)
  }

  /** Unloads (draining in-flight requests up to the grace period) and resolves once `offline`. */
  async unload(): Promise<SlotSnapshot> {
    this.restarts.cancel()
    this.queue.cancel(new Cancelled('unloaded'))
    await this.queue.enqueue(() => this.doUnload())
    return this.snapshot()
  }

  /**
   * Takes a request lease: at once when the slot is ready/serving/idle; waits (bounded by
   * `timeoutMs`, cancelled by `signal`) while it is pulling, starting, warming or restarting.
   * Throws `model.not_loaded` when the slot holds no model, `slot.unavailable` on time-out.
   */
  acquire(options: Parameters<SlotLeases['acquire']>[1]): Promise<Lease> {
    const slot = {
      upstream: () => this.upstream,
      model: () => this.cell.model,
      isPending: () => this.isPending(),
    }
    return this.leases.acquire(slot, options)
  }

  /** Stops everything for shutdown: no restart, no drain beyond the grace period. */
  async stop(): Promise<void> {
    await this.unload().catch(() => undefined)
  }

  /** Adopts or clears what a previous svc run left for this slot (driver.recover). */
  async recover(): Promise<void> {
    if (!this.driver.recover) return
    await this.queue.enqueue(async () => {
      const found = await this.driver.recover?.(new AbortController().signal)
      if (!found || this.cell.state !== 'offline') return
      const upstream = this.leases.bind(found.handle)
      if (upstream.replicas) await upstream.probe(new AbortController().signal) // find the healthy ones
      this.cell.model = found.model
      this.upstream = upstream
      this.readyAt = this.o.clock.now()
      upstream.open()
      this.watchExit(upstream)
      // Adopted upstreams are already healthy: the table's path is offline → starting → warming → ready.
      this.cell.transition('starting')
      this.cell.transition('warming')
      this.cell.transition('ready')
    })
  }

  private startLoad(model: ModelEntry, isRestart: boolean): Promise<SlotSnapshot> {
    const key = loadKey(model) // the same ref with another projector is a swap
    const joined = this.queue.joinable(key)
    if (joined) return joined
    if (this.queue.empty && this.cell.model && loadKey(this.cell.model) === key && this.upstream) {
      return Promise.resolve(this.snapshot())
    }
    if (!isRestart) this.restarts.reset()
    return this.queue.load(model, key, async (signal) => {
      if (signal.aborted) throw cancelledLoad(model, this.name, signal)
      if (!this.cell.model || loadKey(this.cell.model) !== key || !this.upstream) await this.doUnload()
      if (this.upstream) return this.snapshot() // same model survived (a cancelled swap)
      await this.doLoad(model, signal)
      return this.snapshot()
    })
  }

  private async doLoad(model: ModelEntry, signal: AbortSignal): Promise<void> {
    const cell = this.cell
    let entry = model
    cell.model = model
    cell.lastError = null
    let upstream: UpstreamBinding | null = null
    try {
      if (await this.driver.needsPull(entry)) {
        cell.transition('pulling')
        cell.progress = { done: 0, total: entry.size ?? null }
        entry = await this.driver.pull(entry, (p) => cell.publishProgress(entry, p), signal)
        cell.model = entry
        cell.progress = null
      }
      signal.throwIfAborted()
      cell.transition('starting')
      const bound = this.leases.bind(await this.driver.start(entry, signal))
      upstream = bound
      this.upstream = bound
      cell.transition('warming')
      await warmUp({
        driver: { warmupTimeoutMs: this.driver.warmupTimeoutMs, probe: (_, s) => bound.probe(s) },
        clock: this.o.clock,
        handle: bound.handle,
        signal,
        intervalMs: this.o.probeIntervalMs,
      })
      this.readyAt = this.o.clock.now()
      bound.open()
      this.watchExit(bound)
      cell.transition('ready')
    } catch (error) {
      cell.progress = null
      if (signal.aborted && cell.in(PENDING_STATES)) {
        // Cancelled (a swap or an unload): out the table's way, unloading → offline, no lastError.
        cell.transition('unloading')
        await upstream?.stop(this.o.stopGraceMs)
        this.upstream = null
        cell.transition('offline')
        cell.model = null
        throw cancelledLoad(model, this.name, signal)
      }
      const message = errorMessage(error)
      cell.lastError = message
      await upstream?.stop(this.o.stopGraceMs)
      this.upstream = null
      if (cell.state !== 'offline') cell.transition('offline', message)
      cell.model = null
      throw error instanceof SvcError
        ? error
        : new SvcError('upstream.unavailable', message, { cause: error })
    }
  }

  private watchExit(upstream: UpstreamBinding): void {
    void upstream.gone.then((exit) => {
      // Its in-flight requests fail on their own (their upstream connection is gone): their leases no
      // longer count, releasing them later cannot touch a restarted upstream's count, and an unload
      // draining this upstream stops waiting for them.
      upstream.close()
      if (this.upstream !== upstream || !this.cell.in(LEASABLE_STATES)) return
      void upstream.handle.stop(this.o.stopGraceMs) // no replica answers: let go of the rest too
      const model = this.cell.model!
      const ranMs = this.o.clock.now() - this.readyAt
      this.upstream = null
      this.cell.lastError = exit.reason
      this.cell.transition('offline', exit.reason)
      this.cell.model = null
      this.restarts.afterCrash(model, ranMs, this.config, (m) => this.startLoad(m, true))
    })
  }

  private async doUnload(): Promise<void> {
    if (this.cell.state === 'offline' || !this.upstream) return this.cell.forgetError() // the unload answers it
    const upstream = this.upstream
    if (this.cell.state !== 'unloading') this.cell.transition('unloading') // evictIfIdle already moved it
    await upstream.retire({ drainMs: this.o.drainMs, graceMs: this.o.stopGraceMs })
    this.upstream = null
    this.cell.transition('offline')
    this.cell.model = null
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** 503: a load that a newer load or an unload cancelled before it was ready. */
function cancelledLoad(model: ModelEntry, slot: string, signal: AbortSignal): SvcError {
  const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'cancelled')
  return new SvcError('slot.unavailable', `loading ${model.id} into ${slot} was cancelled: ${reason}`)
}
