/**
 * Adapts a provider (what to run) and a runtime (where) to the SlotDriver port the SlotManager
 * calls. This is the only glue between the two; neither side knows the other.
 */
import type { Backend, ModelEntry, SlotConfig, SlotDriver, UpstreamHandle } from '@svc/core'
import type { Provider } from './contract'
import type { ModelStore } from './models/model-store'
import type { Runtime, RuntimeStartRequest } from './runtimes/runtime'

export interface SlotDriverOptions {
  config: SlotConfig
  provider: Provider
  runtime: Runtime
  models: ModelStore
  backend: Backend
  /** Per health probe (ms). Default 2 s. */
  probeTimeoutMs?: number
}

const DEFAULT_WARMUP_MS = 120_000

export function createSlotDriver(options: SlotDriverOptions): SlotDriver {
  const { config, provider, runtime, models, backend } = options
  const remote = runtime.kind === 'remote'
  const request = (model: ModelEntry, signal: AbortSignal): RuntimeStartRequest => ({
    slot: config.name,
    provider,
    model,
    backend,
    // A preset's engine settings come after the slot's (docs/models.md, "Presets").
    args: model.engine ? [...config.args, ...model.engine.args] : config.args,
    signal,
    ...(config.role ? { role: config.role } : {}),
    ...ctxSizeOf(model, config),
    ...(config.replicas !== undefined ? { replicas: config.replicas } : {}),
    ...(config.devices ? { devices: config.devices } : {}),
    ...(config.constraints ? { constraints: config.constraints } : {}),
  })
  const probe = (handle: UpstreamHandle, signal: AbortSignal) =>
    provider.healthProbe(
      handle.base,
      AbortSignal.any([signal, AbortSignal.timeout(options.probeTimeoutMs ?? 2_000)]),
    )

  return {
    warmupTimeoutMs: provider.warmupTimeoutMs ?? DEFAULT_WARMUP_MS,
    async needsPull(model) {
      // A remote upstream has its own model files; nothing is fetched here.
      if (remote) return false
      if (downloadable(model) && !(await models.isPresent(stored(model)))) return true
      return (await runtime.needsPull?.(request(model, AbortSignal.timeout(30_000)))) ?? false
    },
    async pull(model, onProgress, signal) {
      const entry =
        remote || !downloadable(model)
          ? model
          : asLoaded(await models.pull(stored(model), onProgress, signal), model)
      await runtime.pull?.(request(entry, signal), onProgress)
      return entry
    },
    async start(model, signal) {
      const entry = remote
        ? model
        : await models.get(stored(model).id).then((found) => (found ? asLoaded(found, model) : model))
      if (!remote && !entry.path && entry.url) throw new Error(`model file of ${entry.id} is missing`)
      if (!remote && entry.mmproj && !entry.mmproj.path)
        throw new Error(`the vision projector of ${entry.id} is missing (${entry.mmproj.url ?? 'no file'})`)
      return runtime.start(request(entry, signal))
    },
    probe,
    async recover(signal) {
      if (!runtime.recover) return undefined
      const found = await runtime.recover(config.name, (h) => probe(h, signal), signal)
      if (!found) return undefined
      const model = await models.get(found.modelId)
      if (!model) {
        await found.handle.stop(5_000) // a model this svc no longer knows: do not adopt
        return undefined
      }
      return { model, handle: found.handle }
    },
  }
}

/** The context size of a load: a preset's over the slot's. */
function ctxSizeOf(model: ModelEntry, config: SlotConfig): { ctxSize?: number } {
  const ctxSize = model.engine?.ctxSize ?? config.ctxSize
  return ctxSize !== undefined ? { ctxSize } : {}
}

/** The entry as the model store knows it: a preset that changes the engine runs its ref's file. */
function stored(model: ModelEntry): ModelEntry {
  return model.engine && model.engine.ref !== model.id ? { ...model, id: model.engine.ref } : model
}

/** The store's entry (paths found) under the name and engine settings of the load. */
function asLoaded(found: ModelEntry, model: ModelEntry): ModelEntry {
  return model.engine ? { ...found, id: model.id, engine: model.engine } : found
}

/** Whether the model has a file svc downloads: its weights or its projector. */
function downloadable(model: ModelEntry): boolean {
  return model.url !== undefined || model.mmproj?.url !== undefined
}
