/**
 * All slots of one svc instance. Each `Slot` owns its own changes; the manager only creates slots
 * from config (and spare slots beside them: `spare-slots.ts`), routes calls by name, and answers
 * which slot owns a model ref.
 */

import { SvcError } from '../errors'
import type { SlotConfig } from '../slot-config'
import { routeRef } from './demand-route'
import { watchIdle } from './idle-unload'
import { type KeepAliveMs, KeepAlives } from './keep-alive'
import { loadKey } from './load-key'
import { type Lease, Slot, type SlotSnapshot } from './slot'
import { type DemandAcquireOptions, SlotDemand } from './slot-demand'
import type { DefaultLoadResult, LoadOptions, SlotManagerOptions } from './slot-manager-types'
import { spareConfig, spareUnloadAfterMs } from './spare-plan'
import { SpareSlots, stopLeftoverSpares } from './spare-slots'

export type { AdmissionRequest, LoadAdmission } from './load-admission'
export type { DefaultLoadResult, LoadOptions, SlotManagerOptions } from './slot-manager-types'

export class SlotManager {
  private readonly slots = new Map<string, Slot>()
  private readonly configsByName = new Map<string, SlotConfig>()
  private readonly demands = new Map<string, SlotDemand>()
  private readonly keepAlives = new KeepAlives()
  /** Per slot: stops its queue and idle watch (a spare that goes). */
  private readonly offs = new Map<string, () => void>()
  private readonly spares: SpareSlots

  constructor(private readonly options: SlotManagerOptions) {
    this.spares = new SpareSlots({
      bus: options.bus,
      clock: options.clock,
      admission: options.admission,
      has: (name) => this.slots.has(name),
      get: (name) => this.get(name),
      config: (name) => this.config(name),
      demand: (name) => this.demands.get(name),
      resolveModel: (id, config) => options.resolveModel(id, config),
      start: (name, ref) => this.start(name, ref),
      add: (config) => this.add(config),
      drop: (name) => this.drop(name),
    })
    for (const config of options.configs) this.add(config)
  }

  /** The slot called `name`; throws 404 `slot.not_found`. */
  get(name: string): Slot {
    const slot = this.slots.get(name)
    if (!slot) throw new SvcError('slot.not_found', `no slot named "${name}"`, { param: 'slot' })
    return slot
  }

  has(name: string): boolean {
    return this.slots.has(name)
  }

  config(name: string): SlotConfig {
    this.get(name)
    return this.configsByName.get(name)!
  }

  list(): SlotSnapshot[] {
    return this.names().map((name) => this.slots.get(name)!.snapshot())
  }

  /** Every slot's name, each named slot followed by its spares. */
  names(): string[] {
    const named = [...this.slots.keys()].filter((name) => this.spares.parentOf(name) === undefined)
    return named.flatMap((name) => [name, ...this.spares.of(name)])
  }

  /** The slot `name` is a spare of (`primary` for `primary-2`); undefined for a named slot. */
  spareOf(name: string): string | undefined {
    return this.spares.parentOf(name)
  }

  /** Resolves `modelId` (with `options`) for the slot and loads it (see `Slot.load`). */
  async load(name: string, modelId: string, options: LoadOptions = {}): Promise<SlotSnapshot> {
    return (await this.start(name, modelId, options)).loading
  }

  /**
   * Resolves `modelId` and passes the admission (which may unload idle slots first), then starts the
   * load. Resolves once the load has begun, with the load itself boxed in `loading`; rejects with the
   * refusal (unknown model, a model this slot cannot serve, not enough memory).
   */
  async start(
    name: string,
    modelId: string,
    options: LoadOptions = {},
  ): Promise<{ loading: Promise<SlotSnapshot> }> {
    const slot = this.get(name)
    const config = this.config(name)
    const model = await this.options.resolveModel(modelId, config, options)
    const admission = this.options.admission
    const target = slot.targetModel()
    // Already loading or holding this very load (same projector too): nothing new to admit.
    if (!admission || (target && loadKey(target) === loadKey(model))) return { loading: slot.load(model) }
    let loading: Promise<SlotSnapshot> | undefined
    await admission.admit({
      slot,
      config,
      model,
      // A spare only ever takes free room: it evicts nothing.
      ...(this.spares.parentOf(name) !== undefined ? { beside: true } : {}),
      start: () => {
        loading = slot.load(model)
      },
    })
    if (!loading)
      throw new Error(`admission of ${model.id} into ${name} neither started nor refused it (a bug)`)
    return { loading }
  }

  unload(name: string): Promise<SlotSnapshot> {
    return this.get(name).unload()
  }

  /**
   * A request lease on slot `name` (for `options.ref`, or whatever it holds). A slot that manages
   * itself (load on request, `max_concurrent`, `max_queue`) queues it (`SlotDemand`: loads, swaps,
   * 429 when full); any other slot answers as `Slot.acquire` always has.
   */
  acquire(name: string, options: DemandAcquireOptions): Promise<Lease> {
    const gone = this.slots.has(name) ? undefined : this.spares.formerParent(name)
    // A spare that went since the request was resolved: its parent's queue, as without spares.
    if (gone !== undefined) return this.demands.get(gone)!.acquire(options)
    const config = this.config(name)
    const { maxConcurrent, maxQueue } = config.demand
    const onRequest = this.loadsOnRequest(config)
    if (!onRequest && maxConcurrent === 0 && maxQueue === 0) {
      return this.get(name).acquire(options)
    }
    const ref = options.ref
    // A ref the slot does not hold: maybe a spare holds it, or opens for it (`spare-slots.ts`).
    if (onRequest && ref !== undefined && this.spares.mayTake(name, ref))
      return this.spares.acquire(name, { ...options, ref })
    return this.demands.get(name)!.acquire(options)
  }

  /** Requests waiting in slot `name`'s queue, and since when the oldest waits (clock ms). */
  queue(name: string): { depth: number; oldestSince: number | null } {
    this.get(name)
    return this.demands.get(name)!.queue()
  }

  /**
   * The slot that would load `ref` on request (see `routeRef`), or undefined: then a request for
   * it is answered `model.not_loaded`, as without load on request.
   */
  async routeRef(ref: string): Promise<Slot | undefined> {
    const configs = [...this.configsByName.values()]
    if (!configs.some((c) => this.loadsOnRequest(c))) return undefined
    const entry = await this.options.describeModel?.(ref)
    const name = routeRef(ref, entry, configs, (c) => this.loadsOnRequest(c))
    return name === undefined ? undefined : this.get(name)
  }

  /** Whether slot `config` loads on request (its file's `load_on_request`, else the global default). */
  loadsOnRequest(config: SlotConfig): boolean {
    return config.demand.loadOnRequest ?? this.options.demandDefaults?.loadOnRequest ?? false
  }

  /** A client's `keep_alive` for slot `name` while it holds `model` (see `KeepAlives`); null clears it. */
  keepAlive(name: string, model: string, ms: KeepAliveMs | null): void {
    this.keepAlives.set(this.get(name).name, model, ms)
  }

  /** The idle unload in force for slot `name` (ms; 0 never), a `keep_alive` included. */
  idlePolicy(name: string): { unloadAfterMs: number; pinned: boolean } {
    const { demand } = this.config(name)
    const unloadAfterMs = demand.unloadAfterMs ?? this.options.demandDefaults?.unloadAfterMs ?? 0
    const own =
      this.spares.parentOf(name) === undefined
        ? { unloadAfterMs, pinned: demand.pinned }
        : { unloadAfterMs: spareUnloadAfterMs(unloadAfterMs), pinned: false }
    return this.keepAlives.policy(name, this.get(name).currentModel()?.id, own)
  }

  /** The slot that holds (or is about to hold) the model ref `id`, if any. */
  findByModel(id: string): Slot | undefined {
    for (const slot of this.slots.values()) if (slot.currentModel()?.id === id) return slot
    return undefined
  }

  /** Adds a slot or replaces its config; a running upstream keeps running until the next load. */
  configure(config: SlotConfig): void {
    this.spares.forget(config.name) // a file for what was a spare's name: a named slot now
    const existing = this.slots.get(config.name)
    if (existing) {
      existing.reconfigure(config, this.options.createDriver(config))
      this.configsByName.set(config.name, config)
    } else {
      this.add(config)
    }
    for (const name of this.spares.of(config.name)) {
      const own = spareConfig(config, name) // its parent's settings, for its next load
      this.get(name).reconfigure(own, this.options.createDriver(own))
      this.configsByName.set(name, own)
    }
  }

  /** Adopts or clears what a previous run left, for every slot. */
  async recoverAll(): Promise<{ slot: string; error: unknown }[]> {
    // Each slot on its own: one that cannot be recovered (its container engine down) must not keep
    // the others, a remote slot or a host process, from their default loads.
    const slots = [...this.slots]
    const parents = [...this.configsByName.values()].filter((c) => this.loadsOnRequest(c))
    const [results] = await Promise.all([
      Promise.allSettled(slots.map(([, s]) => s.recover())),
      stopLeftoverSpares(parents, (n) => this.slots.has(n), this.options.createDriver, 10_000).catch(
        () => undefined,
      ),
    ])
    return results.flatMap((r, i) =>
      r.status === 'rejected' ? [{ slot: slots[i]![0], error: r.reason }] : [],
    )
  }

  /**
   * Loads `[model].default` into every enabled slot that is offline (a remote slot without one: the
   * first model its remote serves); never throws.
   */
  async loadDefaults(): Promise<DefaultLoadResult[]> {
    const jobs = [...this.configsByName.values()]
      .filter((c) => c.enabled && (c.model.default || c.runtime === 'remote'))
      .filter((c) => this.get(c.name).snapshot().state === 'offline')
      .map(async (c): Promise<DefaultLoadResult> => {
        const model = c.model.default ?? ''
        try {
          const loaded = await this.load(c.name, model, {
            ...(c.model.sha256 ? { sha256: c.model.sha256 } : {}),
            ...(c.model.mmproj ? { mmproj: c.model.mmproj } : {}),
          })
          return { slot: c.name, model: loaded.model ?? model }
        } catch (error) {
          return { slot: c.name, model, error: error instanceof Error ? error.message : String(error) }
        }
      })
    return Promise.all(jobs)
  }

  /** Unloads every slot (shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.stop()))
  }

  private add(config: SlotConfig): void {
    const slot = new Slot({
      ...this.options.slotOptions,
      config,
      driver: this.options.createDriver(config),
      bus: this.options.bus,
      clock: this.options.clock,
    })
    this.slots.set(config.name, slot)
    this.configsByName.set(config.name, config)
    const { bus, clock } = this.options
    const current = () => this.configsByName.get(config.name)!
    const name = config.name
    const demand = new SlotDemand({
      slot,
      bus,
      clock,
      config: current,
      loadOnRequest: () => this.loadsOnRequest(current()),
      load: (ref) =>
        this.spares.parentOf(name) === undefined ? this.start(name, ref) : this.spares.reload(name, ref),
    })
    this.demands.set(name, demand)
    const unwatch = watchIdle({ slot, bus, clock, policy: () => this.idlePolicy(name) })
    this.offs.set(name, () => {
      unwatch()
      demand.close()
    })
  }

  /** Takes a spare slot out (`SpareSlots`): it is offline and nobody waits for it. */
  private drop(name: string): void {
    this.offs.get(name)?.()
    for (const map of [this.offs, this.slots, this.configsByName, this.demands]) map.delete(name)
  }
}
