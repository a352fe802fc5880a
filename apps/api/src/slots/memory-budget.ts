/**
 * The memory budget across slots. Every load of a local slot (process or container) is
 * admitted here first: its estimate must fit in what its device's budget has left after the other
 * slots' charges (the larger of their estimate and their measured use). When it does not fit, the
 * load is refused with 409 `memory.insufficient` naming the holders — or, with `evict = "idle"` in
 * the loading slot's config (or `load_on_request`), the least recently used idle slots on that
 * device are unloaded first; a `pinned` slot never is.
 * A slot with a request in flight is never unloaded: `Slot.evictIfIdle` decides that synchronously.
 * Spare slots (`primary-2`) are evicted before any named slot, and their own loads take only free
 * room (`beside`; `roomBeside` answers whether there is some, for the spare's decision).
 *
 * Admissions run one at a time, and each starts its load synchronously after its last check, so two
 * loads can never both take the last free gigabyte. Remote and swarm slots use no local memory.
 */
import {
  type AdmissionRequest,
  chargedBytes,
  type EventBus,
  type LoadAdmission,
  type MemoryHolder,
  type ModelEntry,
  planFit,
  replicasPerDevice,
  type SlotConfig,
  type SlotManager,
  SvcError,
  type SvcEvents,
  shortfallMessage,
} from '@svc/core'
import type { Logger } from '@svc/core/node'
import { deviceFor, estimateLoad, type LoadEstimate, type MemoryDevice } from '@svc/providers/memory'
import type { Placement } from './placement'

export interface DeviceBudget extends MemoryDevice {
  usedBytes: number
  freeBytes: number | null
  holders: MemoryHolder[]
}

/** What `GET /api/hardware` shows under `memory`. */
export interface MemoryReport {
  devices: DeviceBudget[]
}

export interface MemoryBudget extends LoadAdmission {
  report(): Promise<MemoryReport>
  /**
   * The device a slot with `config` loads into, with its budget and what the other slots hold
   * there now; undefined when it uses no local memory (remote, swarm) or nothing was detected.
   */
  deviceOf(config: SlotConfig): Promise<DeviceBudget | undefined>
}

export interface MemoryBudgetOptions {
  manager: () => SlotManager
  /** The devices with their budgets (from the picker's detection and the env's overrides). */
  devices: () => Promise<MemoryDevice[]>
  place: (config: SlotConfig) => Placement
  bus: EventBus<SvcEvents>
  logger?: Logger
  /** Bound on measuring one upstream's real use (docker stats can be slow). Default 3 s. */
  measureTimeoutMs?: number
}

/** Re-plans after evictions at most this often (a busy slot may refuse its eviction meanwhile). */
const ROUNDS = 3

export function createMemoryBudget(options: MemoryBudgetOptions): MemoryBudget {
  const lastUsed = new Map<string, number>()
  options.bus.on('slot.transition', (e) => {
    if (e.to === 'serving' || e.to === 'idle' || e.to === 'ready') lastUsed.set(e.slot, e.at)
    if (e.to === 'offline') lastUsed.delete(e.slot)
  })
  const estimates = new Map<string, Promise<LoadEstimate>>()
  // Local replicas (`replicas`, `devices`) each load the model: charged once per replica on a device.
  const estimate = async (model: ModelEntry, config: SlotConfig): Promise<LoadEstimate> => {
    const one = await estimateOne(model, config)
    const n = replicasPerDevice(config)
    return n === 1 ? one : { bytes: one.bytes * n, detail: `${n} replicas × (${one.detail})` }
  }
  const estimateOne = (model: ModelEntry, config: SlotConfig): Promise<LoadEstimate> => {
    // A preset's engine settings (presets.toml) are part of what runs: its args after the slot's,
    // its context size last (as llama-server is given it: it wins over a -c in the slot's args).
    const engine = model.engine
    const ctxSize = engine?.ctxSize ?? config.ctxSize
    const args = engine
      ? [...config.args, ...engine.args, ...(engine.ctxSize ? ['-c', String(engine.ctxSize)] : [])]
      : config.args
    const key = JSON.stringify([
      model.id,
      model.path ?? null,
      model.size ?? null,
      model.mmproj?.path ?? model.mmproj?.url ?? null,
      ctxSize ?? null,
      args,
    ])
    let found = estimates.get(key)
    if (!found) {
      if (estimates.size > 256) estimates.clear()
      found = estimateLoad({ model, args, ...(ctxSize !== undefined ? { ctxSize } : {}) })
      estimates.set(key, found)
      found.catch(() => estimates.delete(key))
    }
    return found
  }
  const local = (config: SlotConfig) => {
    const { runtime } = options.place(config)
    return runtime !== 'remote' && runtime !== 'swarm'
  }

  /** What the slots on `device` hold, `except` one (the slot being admitted: not measured at all). */
  async function holdersOn(
    device: MemoryDevice,
    devices: MemoryDevice[],
    except?: string,
  ): Promise<MemoryHolder[]> {
    const manager = options.manager()
    const found = manager.names().flatMap((name) => {
      if (name === except) return []
      const slot = manager.get(name)
      const config = manager.config(name)
      const model = slot.targetModel()
      if (!model || !local(config)) return []
      if (deviceFor(devices, options.place(config).backend)?.id !== device.id) return []
      return [{ slot, config, model, snapshot: slot.snapshot() }]
    })
    return Promise.all(
      found.map(async ({ slot, config, model, snapshot }): Promise<MemoryHolder> => {
        const [est, use] = await Promise.all([
          estimate(model, config).catch((error: Error) => ({
            bytes: 0,
            detail: `no estimate: ${error.message}`,
          })),
          withTimeout(slot.memoryUse(), options.measureTimeoutMs ?? 3_000),
        ])
        // On a discrete GPU only its GPU buffers count; host memory is another device's.
        const used =
          device.kind === 'vram'
            ? (use?.parts?.gpu ?? (use?.by === 'engine' ? use.bytes : null))
            : (use?.bytes ?? null)
        return {
          slot: slot.name,
          model: model.id,
          state: snapshot.state,
          estimateBytes: est.bytes,
          estimate: est.detail,
          usedBytes: used,
          usedBy: used === null ? null : (use?.by ?? null),
          chargedBytes: chargedBytes(est.bytes, used),
          lastUsedAt: lastUsed.get(slot.name) ?? null,
          inflight: snapshot.inflight,
          // A pinned slot is never evicted for another's load.
          evictable:
            (snapshot.state === 'ready' || snapshot.state === 'idle') &&
            snapshot.inflight === 0 &&
            !config.demand.pinned,
          // A spare slot (primary-2) goes before any named slot (core's lruOrder).
          ...(manager.spareOf(slot.name) !== undefined ? { spare: true } : {}),
        }
      }),
    )
  }

  /** Resolves once the load is started, or throws the refusal. */
  async function admitNow(request: AdmissionRequest): Promise<void> {
    const start = () => request.start()
    const { slot, config, model } = request
    const name = slot.name
    for (let round = 1; ; round++) {
      const devices = await options.devices().catch(() => []) // no detection: no budget to enforce
      const device = deviceFor(devices, options.place(config).backend)
      if (!device || device.budgetBytes === null) {
        if (request.beside) throw noBudget(name) // a spare opens only where the budget is known
        return start()
      }
      const need = await estimate(model, config)
      // Its own upstream (the one a swap replaces) is not measured: reading /proc costs a swap ms.
      const holders = await holdersOn(device, devices, name)
      // A slot that loads on request makes room the way its peers do: idle slots go, LRU first.
      // A spare slot never does: it takes only free room.
      const mayEvict =
        !request.beside && (config.evict === 'idle' || options.manager().loadsOnRequest(config))
      const plan = planFit({ budgetBytes: device.budgetBytes, holders, needBytes: need.bytes, mayEvict })
      if (plan.fits && plan.evict.length === 0) return start() // no await since the check
      if (!plan.fits || round === ROUNDS) {
        const usedBytes = holders.reduce((sum, h) => sum + h.chargedBytes, 0)
        throw new SvcError(
          'memory.insufficient',
          shortfallMessage({
            slot: name,
            model: model.id,
            needBytes: need.bytes,
            estimate: need.detail,
            deviceLabel: device.label,
            budgetBytes: device.budgetBytes,
            usedBytes,
            holders,
            mayEvict,
            file: `slots/${name}.toml`,
          }),
          { param: 'model' },
        )
      }
      for (const victim of plan.evict) {
        const unloading = options.manager().get(victim).evictIfIdle()
        if (!unloading) continue // a request came in meanwhile: plan again
        options.logger?.info('slot evicted to make room', {
          slot: victim,
          for: name,
          model: model.id,
          device: device.id,
        })
        const gone = holders.find((h) => h.slot === victim)?.model ?? null
        options.bus.emit('slot.auto', {
          slot: victim,
          action: 'unload',
          reason: 'memory',
          model: gone,
          for: name,
          at: Date.now(),
        })
        await unloading.catch(() => undefined)
      }
    }
  }

  let queue: Promise<unknown> = Promise.resolve()
  return {
    admit(request) {
      // One admission at a time; the load itself runs outside the queue once started.
      const admitted = queue.then(() => admitNow(request))
      queue = admitted.catch(() => undefined)
      return admitted
    },
    async roomBeside({ config, model }) {
      if (!local(config)) return null
      const devices = await options.devices().catch(() => [])
      const device = deviceFor(devices, options.place(config).backend)
      if (!device || device.budgetBytes === null) return null
      const [need, holders] = await Promise.all([estimate(model, config), holdersOn(device, devices)])
      const plan = planFit({
        budgetBytes: device.budgetBytes,
        holders,
        needBytes: need.bytes,
        mayEvict: false,
      })
      return plan.fits
    },
    async deviceOf(config) {
      if (!local(config)) return undefined
      const devices = await options.devices().catch(() => [])
      const device = deviceFor(devices, options.place(config).backend)
      if (!device) return undefined
      const holders = await holdersOn(device, devices, config.name)
      const usedBytes = holders.reduce((sum, h) => sum + h.chargedBytes, 0)
      const freeBytes = device.budgetBytes === null ? null : device.budgetBytes - usedBytes
      return { ...device, usedBytes, freeBytes, holders }
    },
    async report() {
      const devices = await options.devices().catch(() => []) // no detection: no budget to enforce
      return {
        devices: await Promise.all(
          devices.map(async (device): Promise<DeviceBudget> => {
            const holders = await holdersOn(device, devices)
            const usedBytes = holders.reduce((sum, h) => sum + h.chargedBytes, 0)
            const freeBytes = device.budgetBytes === null ? null : device.budgetBytes - usedBytes
            return { ...device, usedBytes, freeBytes, holders }
          }),
        ),
      }
    },
  }
}

function noBudget(slot: string): SvcError {
  return new SvcError(
    'memory.insufficient',
    `slot "${slot}" opens only where the memory budget is known (set SVC_MEMORY_BUDGET_GB)`,
    { param: 'model' },
  )
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer))
}
