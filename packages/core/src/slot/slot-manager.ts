/**
 * All slots of one svc instance. Each `Slot` owns its own changes; the manager only creates slots
 * from config, routes calls by name, and answers which slot owns a model ref.
 */

import type { Clock } from '../clock'
import { SvcError } from '../errors'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { SlotDriver } from '../slot-driver'
import { routeRef } from './demand-route'
import { watchIdle } from './idle-unload'
import { type KeepAliveMs, KeepAlives } from './keep-alive'
import { loadKey } from './load-key'
import { type Lease, Slot, type SlotOptions, type SlotSnapshot } from './slot'
import { type DemandAcquireOptions, SlotDemand } from './slot-demand'

/** A load asking to be let in (see `LoadAdmission`). */
export interface AdmissionRequest {
  slot: Slot
  config: SlotConfig
  model: ModelEntry
  /** Starts the load. Call it once, synchronously after the last check. */
  start(): void
}

/**
 * Decides whether a load may start now (the memory budget): it may unload other slots first, then
 * calls `start` and resolves, or rejects to refuse. Loads of the model a slot already holds skip it.
 */
export interface LoadAdmission {
  admit(request: AdmissionRequest): Promise<void>
}

export interface SlotManagerOptions {
  configs: SlotConfig[]
  bus: EventBus<SvcEvents>
  clock: Clock
  /** Builds the driver (provider + runtime) for a slot config. Called again after `configure`. */
  createDriver(config: SlotConfig): SlotDriver
  /**
   * Resolves what a client or the CLI named (curated id, registry ref, local path, URL) to an entry;
   * `sha256` is what a model pulled from a URL must hash to, `mmproj` a vision projector to load
   * with it (a local path or a URL).
   */
  resolveModel(id: string, config: SlotConfig, options?: LoadOptions): Promise<ModelEntry>
  slotOptions?: Partial<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>>
  /** Lets each load in, or refuses it; without one every load starts at once. */
  admission?: LoadAdmission
  /** For slots whose file leaves them unset (SVC_LOAD_ON_REQUEST, SVC_UNLOAD_AFTER). Default: off. */
  demandDefaults?: { loadOnRequest?: boolean; unloadAfterMs?: number }
  /** The entry of a ref svc knows (catalogue, pulled, registered), to route a load on request. */
  describeModel?(ref: string): Promise<ModelEntry | undefined>
}

export interface LoadOptions {
  /** sha256 (hex) the file pulled from a URL must have. */
  sha256?: string
  /** A vision projector file (path or URL) for an llm model. */
  mmproj?: string
}

export interface DefaultLoadResult {
  slot: string
  model: string
  error?: string
}

export class SlotManager {
  private readonly slots = new Map<string, Slot>()
  private readonly configsByName = new Map<string, SlotConfig>()
  private readonly demands = new Map<string, SlotDemand>()
  private readonly keepAlives = new KeepAlives()

  constructor(private readonly options: SlotManagerOptions) {
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
    return [...this.slots.values()].map((s) => s.snapshot())
  }

  names(): string[] {
    return [...this.slots.keys()]
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
    const config = this.config(name)
    const { maxConcurrent, maxQueue } = config.demand
    if (!this.loadsOnRequest(config) && maxConcurrent === 0 && maxQueue === 0) {
      return this.get(name).acquire(options)
    }
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
    const own = { unloadAfterMs, pinned: demand.pinned }
    return this.keepAlives.policy(name, this.get(name).currentModel()?.id, own)
  }

  /** The slot that holds (or is about to hold) the model ref `id`, if any. */
  findByModel(id: string): Slot | undefined {
    for (const slot of this.slots.values()) if (slot.currentModel()?.id === id) return slot
    return undefined
  }

  /** Adds a slot or replaces its config; a running upstream keeps running until the next load. */
  configure(config: SlotConfig): void {
    const existing = this.slots.get(config.name)
    if (existing) {
      existing.reconfigure(config, this.options.createDriver(config))
      this.configsByName.set(config.name, config)
    } else {
      this.add(config)
    }
  }

  /** Adopts or clears what a previous run left, for every slot. */
  async recoverAll(): Promise<{ slot: string; error: unknown }[]> {
    // Each slot on its own: one that cannot be recovered (its container engine down) must not keep
    // the others, a remote slot or a host process, from their default loads.
    const slots = [...this.slots]
    const results = await Promise.allSettled(slots.map(([, s]) => s.recover()))
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
    this.demands.set(
      config.name,
      new SlotDemand({
        slot,
        bus,
        clock,
        config: current,
        loadOnRequest: () => this.loadsOnRequest(current()),
        load: (ref) => this.start(config.name, ref),
      }),
    )
    watchIdle({
      slot,
      bus,
      clock,
      policy: () => this.idlePolicy(config.name),
    })
  }
}
