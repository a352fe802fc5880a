/**
 * One slot: its state machine and the single owner of every change to it (DESIGN.md "Slot lifecycle").
 *
 * Callers ask for outcomes (`load`, `unload`, `acquire`) and never check state first. Changes run one
 * at a time on an operation chain; a newer `load` or an `unload` cancels a load that has not reached
 * `ready` yet (through its AbortSignal) and then runs after it. Crashes are handled where they are
 * observed (the upstream's `exited` promise) and may schedule a restart with exponential backoff.
 */
import { SvcError } from '../errors'
import type { ModelEntry, PullProgress } from '../models'
import type { SlotConfig } from '../slot-config'
import type { MemoryUse, SlotDriver, UpstreamHandle } from '../slot-driver'
import { canTransition, LEASABLE_STATES, PENDING_STATES, type SlotState } from '../slot-states'
import { LeaseLedger } from './lease-ledger'
import { loadKey } from './load-key'
import { RestartBackoff } from './restart-backoff'
import type { Lease, SlotOptions, SlotSnapshot } from './slot-types'
import { UpstreamBinding } from './upstream-binding'
import { type LeaseWaiter, waitForLeasable } from './wait'
import { warmUp } from './warm'

export type { Lease, SlotOptions, SlotSnapshot } from './slot-types'

interface Loading {
  model: ModelEntry
  /** {@link loadKey} of the model being loaded. */
  key: string
  controller: AbortController
  promise: Promise<SlotSnapshot>
}

class Cancelled extends Error {}

export class Slot {
  private config: SlotConfig
  private driver: SlotDriver
  private state: SlotState = 'offline'
  private model: ModelEntry | null = null
  /** The running upstream (one instance or a replica set) and where its leases go. */
  private upstream: UpstreamBinding | null = null
  private readyAt = 0
  /** Leases per upstream instance (per replica): a release only ever changes its own instance's count. */
  private readonly leases = new LeaseLedger<object>({
    onIdle: () => {
      if (this.state === 'serving') this.transition('idle')
    },
  })
  private lastError: string | null = null
  private since: number
  private progress: PullProgress | null = null
  private readonly restarts: RestartBackoff
  private chain: Promise<unknown> = Promise.resolve()
  /** Operations queued or running on the chain; "already loaded" is only true when none are. */
  private queued = 0
  private loading: Loading | null = null
  private readonly o: Required<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>> & SlotOptions

  constructor(options: SlotOptions) {
    this.o = {
      drainMs: 30_000,
      stopGraceMs: 10_000,
      probeIntervalMs: 200,
      restartBaseDelayMs: 1_000,
      restartMaxDelayMs: 60_000,
      restartResetMs: 60_000,
      replicaProbeMs: 2_000,
      replicaDownAfter: 3,
      ...options,
    }
    this.config = options.config
    this.driver = options.driver
    this.since = options.clock.now()
    this.restarts = new RestartBackoff({
      slot: options.config.name,
      bus: options.bus,
      clock: options.clock,
      baseDelayMs: this.o.restartBaseDelayMs,
      maxDelayMs: this.o.restartMaxDelayMs,
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
      state: this.state,
      model: this.model?.id ?? null,
      inflight: this.leases.inflight(),
      lastError: this.lastError,
      since: this.since,
      progress: this.progress,
      restarts: this.restarts.count,
      upstream: this.upstream
        ? { base: this.upstream.handle.base.origin, ...this.upstream.handle.describe() }
        : null,
      replicas: this.upstream?.status() ?? null,
    }
  }

  /** The model the slot holds or is about to hold (a queued load or a pending restart). */
  currentModel(): ModelEntry | null {
    return this.model ?? this.restarts.model
  }

  /**
   * The model the slot's memory is spoken for by: the one being loaded (a swap's new model), else the
   * one it holds, else the one a pending restart brings back. Null when it will hold nothing.
   */
  targetModel(): ModelEntry | null {
    if (this.loading && !this.loading.controller.signal.aborted) return this.loading.model
    return this.model ?? this.restarts.model
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
    const idle = this.state === 'ready' || this.state === 'idle'
    if (!idle || this.leases.inflight() > 0 || this.queued > 0 || this.loading || this.restarts.pending)
      return undefined
    this.transition('unloading')
    return this.unload()
  }

  /** Whether a request that arrives now would get an upstream eventually (loading, restarting). */
  isPending(): boolean {
    return (
      (this.loading !== null && !this.loading.controller.signal.aborted) ||
      this.restarts.pending ||
      (PENDING_STATES as readonly string[]).includes(this.state)
    )
  }

  logs(): string[] {
    return this.upstream?.handle.logs() ?? []
  }

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
    this.loading?.controller.abort(new Cancelled('unloaded'))
    await this.enqueue(() => this.doUnload())
    return this.snapshot()
  }

  /**
   * Takes a request lease: at once when the slot is ready/serving/idle; waits (bounded by
   * `timeoutMs`, cancelled by `signal`) while it is pulling, starting, warming or restarting.
   * Throws `model.not_loaded` when the slot holds no model, `slot.unavailable` on time-out.
   */
  async acquire(options: { signal?: AbortSignal; timeoutMs: number }): Promise<Lease> {
    const waiter: LeaseWaiter = {
      slot: this.config.name,
      bus: this.o.bus,
      clock: this.o.clock,
      isLeasable: () => (LEASABLE_STATES as readonly string[]).includes(this.state) && this.upstream !== null,
      isPending: () => this.isPending(),
    }
    await waitForLeasable(waiter, options)
    return this.takeLease()
  }

  /** Stops everything for shutdown: no restart, no drain beyond the grace period. */
  async stop(): Promise<void> {
    await this.unload().catch(() => undefined)
  }

  /** Adopts or clears what a previous svc run left for this slot (driver.recover). */
  async recover(): Promise<void> {
    if (!this.driver.recover) return
    await this.enqueue(async () => {
      const found = await this.driver.recover?.(new AbortController().signal)
      if (!found || this.state !== 'offline') return
      const upstream = this.bind(found.handle)
      if (upstream.replicas) await upstream.probe(new AbortController().signal) // find the healthy ones
      this.model = found.model
      this.upstream = upstream
      this.readyAt = this.o.clock.now()
      upstream.open()
      this.watchExit(upstream)
      // Adopted upstreams are already healthy: the table's path is offline → starting → warming → ready.
      this.transition('starting')
      this.transition('warming')
      this.transition('ready')
    })
  }

  private takeLease(): Lease {
    const lease = this.upstream!.take(this.model!) // throws when no replica is healthy
    if (this.state !== 'serving') this.transition('serving')
    return lease
  }

  private bind(handle: UpstreamHandle): UpstreamBinding {
    return new UpstreamBinding(handle, {
      slot: this.name,
      ledger: this.leases,
      probe: (h, signal) => this.driver.probe(h, signal),
      clock: this.o.clock,
      replicaProbeMs: this.o.replicaProbeMs,
      replicaDownAfter: this.o.replicaDownAfter,
      bus: this.o.bus,
    })
  }

  private startLoad(model: ModelEntry, isRestart: boolean): Promise<SlotSnapshot> {
    if (this.loading?.key === loadKey(model)) return this.loading.promise
    if (this.queued === 0 && this.model && loadKey(this.model) === loadKey(model) && this.upstream) {
      return Promise.resolve(this.snapshot())
    }
    this.loading?.controller.abort(new Cancelled(`replaced by a load of ${model.id}`))
    if (!isRestart) this.restarts.count = 0
    const controller = new AbortController()
    const promise = this.enqueue(async () => {
      if (controller.signal.aborted) {
        throw new SvcError(
          'slot.unavailable',
          `loading ${model.id} into ${this.name} was cancelled: ${reasonOf(controller.signal)}`,
        )
      }
      if (!this.model || loadKey(this.model) !== loadKey(model) || !this.upstream) await this.doUnload()
      if (this.upstream) return this.snapshot() // same model survived (a cancelled swap)
      await this.doLoad(model, controller.signal)
      return this.snapshot()
    })
    const loading: Loading = { model, key: loadKey(model), controller, promise }
    this.loading = loading
    const clear = () => {
      if (this.loading === loading) this.loading = null
    }
    promise.then(clear, clear)
    return promise
  }

  private async doLoad(model: ModelEntry, signal: AbortSignal): Promise<void> {
    let entry = model
    this.model = model
    this.lastError = null
    let upstream: UpstreamBinding | null = null
    try {
      if (await this.driver.needsPull(entry)) {
        this.transition('pulling')
        this.progress = { done: 0, total: entry.size ?? null }
        entry = await this.driver.pull(entry, (p) => this.publishProgress(entry, p), signal)
        this.model = entry
        this.progress = null
      }
      signal.throwIfAborted()
      this.transition('starting')
      const bound = this.bind(await this.driver.start(entry, signal))
      upstream = bound
      this.upstream = bound
      this.transition('warming')
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
      this.transition('ready')
    } catch (error) {
      this.progress = null
      if (signal.aborted && (PENDING_STATES as readonly string[]).includes(this.state)) {
        this.transition('unloading')
        await upstream?.handle.stop(this.o.stopGraceMs)
        upstream?.close()
        this.upstream = null
        this.transition('offline')
        this.model = null
        throw new SvcError(
          'slot.unavailable',
          `loading ${model.id} into ${this.name} was cancelled: ${reasonOf(signal)}`,
        )
      }
      const message = errorMessage(error)
      this.lastError = message
      await upstream?.handle.stop(this.o.stopGraceMs)
      upstream?.close()
      this.upstream = null
      if (this.state !== 'offline') this.transition('offline', message)
      this.model = null
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
      if (this.upstream !== upstream || !(LEASABLE_STATES as readonly string[]).includes(this.state)) return
      void upstream.handle.stop(this.o.stopGraceMs) // no replica answers: let go of the rest too
      const model = this.model!
      const ranMs = this.o.clock.now() - this.readyAt
      this.upstream = null
      this.lastError = exit.reason
      this.transition('offline', exit.reason)
      this.model = null
      if (ranMs >= this.o.restartResetMs) this.restarts.count = 0
      this.restarts.schedule(model, this.config, (m) => this.startLoad(m, true))
    })
  }

  private async doUnload(): Promise<void> {
    if (this.state === 'offline' || !this.upstream) return
    const upstream = this.upstream
    if (this.state !== 'unloading') this.transition('unloading') // evictIfIdle already moved it
    if (upstream.inflight() > 0) {
      const timeout = new AbortController()
      await Promise.race([
        upstream.drained(),
        this.o.clock.sleep(this.o.drainMs, timeout.signal).catch(() => undefined),
      ])
      timeout.abort()
    }
    await upstream.handle.stop(this.o.stopGraceMs)
    this.upstream = null
    upstream.close() // leases still out after the grace period end with their upstream
    this.transition('offline')
    this.model = null
  }

  private publishProgress(model: ModelEntry, p: PullProgress): void {
    this.progress = p
    this.o.bus.emit('slot.progress', { slot: this.name, model: model.id, ...p, at: this.o.clock.now() })
  }

  private transition(to: SlotState, error?: string): void {
    const from = this.state
    if (!canTransition(from, to)) {
      throw new Error(`slot ${this.name}: refused transition ${from} -> ${to} (a bug in the slot owner)`)
    }
    this.state = to
    this.since = this.o.clock.now()
    this.o.bus.emit('slot.transition', {
      slot: this.name,
      from,
      to,
      model: this.model?.id ?? null,
      at: this.since,
      ...(error ? { error } : {}),
    })
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    this.queued++
    const run = this.chain.then(op).finally(() => {
      this.queued--
    })
    this.chain = run.catch(() => undefined)
    return run
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'cancelled')
}
