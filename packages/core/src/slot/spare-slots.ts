/**
 * The spare slots of a manager (docs/self-managing-slots.md, "Spare slots"). A request for a ref on
 * a slot that loads on request and holds another model goes where `planSpare` (pure) says: the member
 * of the family (the slot and its spares) that holds the ref, a new spare `<slot>-<n>` when memory
 * has room beside (up to `max_loaded`), or the slot's own queue (it loads or swaps, as without
 * spares). A spare is an ordinary `Slot` in the manager with its parent's settings; it is never
 * written to a file, unloads after its idle time, is evicted first under the memory budget, and
 * goes from the manager (`slot.removed`) once offline with nobody waiting.
 */
import type { Clock } from '../clock'
import { SvcError } from '../errors'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { SlotDriver } from '../slot-driver'
import type { LoadAdmission } from './load-admission'
import type { Lease, Slot, SlotSnapshot } from './slot'
import type { DemandAcquireOptions, SlotDemand } from './slot-demand'
import { DEFAULT_MAX_LOADED, planSpare, spareConfig, spareName } from './spare-plan'

/** What `SpareSlots` needs of its manager. */
export interface SpareHost {
  bus: EventBus<SvcEvents>
  clock: Clock
  admission: LoadAdmission | undefined
  has(name: string): boolean
  get(name: string): Slot
  config(name: string): SlotConfig
  demand(name: string): SlotDemand | undefined
  resolveModel(id: string, config: SlotConfig): Promise<ModelEntry>
  /** Starts loading `ref` into slot `name` through the admission; rejects with the refusal. */
  start(name: string, ref: string): Promise<{ loading: Promise<SlotSnapshot> }>
  /** Adds a slot with `config` (its queue and idle unload included). */
  add(config: SlotConfig): void
  /** Takes slot `name` out (its queue and idle watch stop). */
  drop(name: string): void
}

interface Spare {
  parent: string
  /** The ref it was opened for (what it holds until it loads, or after an idle unload). */
  ref: string
  /** Why it went offline, when it failed: a reload on request answers this instead. */
  failure: SvcError | null
}

/**
 * Stops what a previous run's spare slots left running (svc ended without unloading them): spares
 * are never adopted, since nothing asked for them in this run. `parents`: the named slots that load
 * on request; names up to their `max_loaded` (at least `DEFAULT_MAX_LOADED`) that no named slot
 * `taken` are looked for.
 */
export async function stopLeftoverSpares(
  parents: readonly SlotConfig[],
  taken: (name: string) => boolean,
  createDriver: (config: SlotConfig) => SlotDriver,
  graceMs: number,
): Promise<void> {
  const names = parents.flatMap(
    (p) =>
      Array.from({ length: Math.max(p.demand.maxLoaded ?? 0, DEFAULT_MAX_LOADED) - 1 }, (_, i) =>
        spareConfig(p, `${p.name}-${i + 2}`),
      ).filter((c) => !taken(c.name)), // a named slot of that name is its own
  )
  const signal = new AbortController().signal
  await Promise.all(
    names.map(async (config) => {
      const found = await createDriver(config)
        .recover?.(signal)
        .catch(() => undefined)
      await found?.handle.stop(graceMs).catch(() => undefined)
    }),
  )
}

/** Spares that went are remembered this many at a time (a request resolved to one goes to its parent). */
const GONE_MAX = 64

export class SpareSlots {
  private readonly spares = new Map<string, Spare>()
  private readonly gone = new Map<string, string>()
  private readonly opening = new Map<string, Promise<string>>()
  private readonly reserved = new Set<string>()

  constructor(private readonly host: SpareHost) {
    // Subscribed before any slot's queue, so a failure is known when the queue asks to reload.
    host.bus.on('slot.transition', (e) => {
      const spare = this.spares.get(e.slot)
      if (!spare) return
      if (e.to === 'ready') spare.failure = null
      if (e.to === 'offline' && e.error) spare.failure = new SvcError('upstream.unavailable', e.error)
      if (e.to === 'offline') queueMicrotask(() => this.sweep(e.slot))
    })
    host.bus.on('slot.queue', (e) => {
      if (this.spares.has(e.slot)) queueMicrotask(() => this.sweep(e.slot))
    })
  }

  /** The slot `name` is a spare of; undefined for a named slot. */
  parentOf(name: string): string | undefined {
    return this.spares.get(name)?.parent
  }

  /** The spares of `parent`, in the order they opened. */
  of(parent: string): string[] {
    const out: string[] = []
    for (const [name, spare] of this.spares) if (spare.parent === parent) out.push(name)
    return out
  }

  /** The parent of a spare that went (a request resolved to it before it did). */
  formerParent(name: string): string | undefined {
    return this.gone.get(name)
  }

  /** A slot file now names `name`: it is a named slot from here on. */
  forget(name: string): void {
    this.spares.delete(name)
    this.gone.delete(name)
  }

  /** Whether a request for `ref` on slot `name` may be answered by another member (cheap). */
  mayTake(name: string, ref: string): boolean {
    return !this.spares.has(name) && this.host.get(name).targetModel()?.id !== ref
  }

  /** A lease for `options.ref` from the member `planSpare` picks (see the file's comment). */
  async acquire(parent: string, options: DemandAcquireOptions & { ref: string }): Promise<Lease> {
    const target = await this.choose(parent, options.ref)
    const demand = this.host.demand(target) ?? this.host.demand(parent)!
    if (!this.spares.has(target)) return demand.acquire(options)
    try {
      return await demand.acquire(options)
    } catch (error) {
      queueMicrotask(() => this.sweep(target)) // an empty spare nobody came to
      throw error
    }
  }

  /** A spare's queue asks to load `ref` again (after an idle unload): never after a failure. */
  reload(name: string, ref: string): Promise<{ loading: Promise<SlotSnapshot> }> {
    const failure = this.spares.get(name)?.failure
    return failure ? Promise.reject(failure) : this.host.start(name, ref)
  }

  private family(parent: string): { names: string[]; held: (string | null)[] } {
    const names = [parent, ...this.of(parent)]
    const held = names.map((n) => {
      const model = this.host.get(n).targetModel()?.id
      const spare = this.spares.get(n)
      return model ?? (spare && !spare.failure ? spare.ref : null)
    })
    return { names, held }
  }

  private maxLoaded(parent: string): number {
    return this.host.config(parent).demand.maxLoaded ?? DEFAULT_MAX_LOADED
  }

  /** The member to queue on: its name. Concurrent requests for one ref share one decision. */
  private choose(parent: string, ref: string): Promise<string> {
    const key = `${parent}\0${ref}`
    const pending = this.opening.get(key)
    if (pending) return pending
    const { names, held } = this.family(parent)
    // Would a spare open if memory had room? Only then is the budget asked.
    const first = planSpare({ ref, family: held, maxLoaded: this.maxLoaded(parent), room: true })
    if (first.to === 'member') return Promise.resolve(names[first.index]!)
    if (first.to === 'parent' || !this.host.admission?.roomBeside) return Promise.resolve(parent)
    const opening = this.open(parent, ref).finally(() => this.opening.delete(key))
    this.opening.set(key, opening)
    return opening
  }

  private async open(parent: string, ref: string): Promise<string> {
    const name = spareName(parent, (n) => this.host.has(n) || this.reserved.has(n))
    this.reserved.add(name)
    try {
      const config = spareConfig(this.host.config(parent), name)
      const model = await this.host.resolveModel(ref, config).catch(() => undefined)
      if (!model) return parent // the parent's own load says why, as without spares
      const room = (await this.host.admission?.roomBeside?.({ config, model }).catch(() => null)) ?? null
      const { names, held } = this.family(parent)
      const plan = planSpare({ ref, family: held, maxLoaded: this.maxLoaded(parent), room })
      if (plan.to === 'member') return names[plan.index]!
      if (plan.to === 'parent') return parent
      this.spares.set(name, { parent, ref, failure: null })
      this.gone.delete(name)
      this.host.add(config)
      const { bus, clock } = this.host
      bus.emit('slot.added', {
        slot: name,
        spare_of: parent,
        provider: config.provider,
        backend: config.backend ?? null,
        runtime: config.runtime ?? null,
        at: clock.now(),
      })
      try {
        const { loading } = await this.host.start(name, ref)
        // Its queue did not start this load: it hears of a failure from here.
        loading.catch((error) => this.host.demand(name)?.refuseAll(error))
      } catch (error) {
        this.remove(name)
        // Memory changed since the question (another load took the room): the swap applies.
        if (error instanceof SvcError && error.code === 'memory.insufficient') return parent
        throw error
      }
      bus.emit('slot.auto', { slot: name, action: 'load', reason: 'request', model: ref, at: clock.now() })
      return name
    } finally {
      this.reserved.delete(name)
    }
  }

  /** Takes a spare out once it is offline, loads nothing and nobody waits for it. */
  private sweep(name: string): void {
    if (!this.spares.has(name) || !this.host.has(name)) return
    const slot = this.host.get(name)
    if (slot.snapshot().state !== 'offline' || slot.isPending() || slot.targetModel()) return
    if (!this.host.demand(name)?.settled) return
    this.remove(name)
  }

  private remove(name: string): void {
    const spare = this.spares.get(name)
    if (!spare) return
    this.spares.delete(name)
    this.gone.set(name, spare.parent)
    if (this.gone.size > GONE_MAX) this.gone.delete(this.gone.keys().next().value!)
    this.host.drop(name)
    this.host.bus.emit('slot.removed', { slot: name, spare_of: spare.parent, at: this.host.clock.now() })
  }
}
