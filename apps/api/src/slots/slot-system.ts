/**
 * Wires the slot machinery: config dir → SlotManager, each slot's driver built from its provider
 * (built-in or third-party) and runtime, the model store, one event bus. Apps are the only place
 * that knows both `@svc/core` and `@svc/providers`.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Backend,
  type Clock,
  createEventBus,
  type EventBus,
  type ModelEntry,
  type SlotConfig,
  type SlotConfigError,
  SlotManager,
  type SlotOptions,
  SvcError,
  type SvcEvents,
  systemClock,
} from '@svc/core'
import { readSlotConfigDir } from '@svc/core/node'
import {
  createImageCache,
  createImageProvider,
  createLlmProvider,
  createProcessRuntime,
  createRemoteRuntime,
  createSlotDriver,
  type ImageCache,
  loadCatalogue,
  ModelStore,
  type Provider,
  type Runtime,
} from '@svc/providers'

export const DEFAULT_CATALOGUE = fileURLToPath(new URL('../../../../manifests/models.toml', import.meta.url))
export const DEFAULT_WORKFLOWS = fileURLToPath(new URL('../../../../workflows', import.meta.url))

export interface SlotSystemOptions {
  configDir: string
  stateDir: string
  /** Providers beyond the built-ins (third-party), by kind. A kind given here replaces a built-in. */
  providers?: Provider[]
  /** The curated catalogue (default `manifests/models.toml`; SVC_MODELS_MANIFEST overrides). */
  catalogueFile?: string
  clock?: Clock
  env?: Record<string, string | undefined>
  slotOptions?: Partial<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>>
  /** Backend for a slot whose config names none (the picker's choice). Default `cpu`. */
  defaultBackend?: (config: SlotConfig, provider: Provider) => Backend
  /** Generated images: `<state>/images/cache`, bounded (defaults: 2 GiB, 7 days). */
  imageCache?: { maxBytes?: number; maxAgeMs?: number }
  workflowsDir?: string
  /** Runtimes beyond process/remote (e.g. the container runtime), by kind. */
  runtimes?: Partial<Record<'container', Runtime>>
}

export interface SlotSystem {
  manager: SlotManager
  store: ModelStore
  bus: EventBus<SvcEvents>
  providers: Map<string, Provider>
  /** Where `/v1/images/*` results are kept (served at `/api/images/cache/<uuid>.png`). */
  imageCache: ImageCache
  /** Slot config files that did not parse (their slots keep the defaults). */
  configErrors: SlotConfigError[]
  /** Resolves a model for a slot, refusing models its provider cannot serve. */
  resolveModel(id: string, config: SlotConfig): Promise<ModelEntry>
  provider(config: SlotConfig): Provider
  /** Applies a (new or changed) slot config: defaults resolved, effective at the next load. */
  configure(config: SlotConfig): void
}

export async function createSlotSystem(options: SlotSystemOptions): Promise<SlotSystem> {
  const bus = createEventBus<SvcEvents>()
  const clock = options.clock ?? systemClock
  const catalogue = await loadCatalogue(options.catalogueFile ?? DEFAULT_CATALOGUE)
  if (catalogue.errors.length > 0) throw new Error(catalogue.errors.join('\n'))
  const store = await ModelStore.open({ stateDir: options.stateDir, catalogue: catalogue.entries })
  const imageCache = createImageCache({
    dir: join(options.stateDir, 'images', 'cache'),
    maxBytes: options.imageCache?.maxBytes ?? 2 * 1024 ** 3,
    maxAgeMs: options.imageCache?.maxAgeMs ?? 7 * 24 * 3600_000,
  })
  const imageModels = catalogue.entries
    .filter((e) => e.provider === 'image' && e.workflow)
    .map((e) => ({ id: e.id, workflow: e.workflow! }))
  const providers = new Map<string, Provider>([
    ['llm', createLlmProvider()],
    [
      'image',
      createImageProvider({
        cache: imageCache,
        workflowsDir: options.workflowsDir ?? DEFAULT_WORKFLOWS,
        models: imageModels,
      }),
    ],
  ])
  for (const p of options.providers ?? []) providers.set(p.kind, p)
  const processRuntime = createProcessRuntime({
    stateDir: options.stateDir,
    ...(options.env ? { env: options.env } : {}),
  })

  const providerFor = (config: SlotConfig): Provider => {
    const p = providers.get(config.provider)
    if (!p)
      throw new SvcError(
        'backend.unavailable',
        `slot "${config.name}": no provider "${config.provider}" is installed (known: ${[...providers.keys()].join(', ')})`,
      )
    return p
  }
  const runtimeFor = (config: SlotConfig): Runtime => {
    if (config.runtime === 'remote') return createRemoteRuntime({ url: config.url! })
    if (config.runtime === 'container') {
      const container = options.runtimes?.container
      if (!container)
        throw new SvcError('backend.unavailable', `slot "${config.name}": no container engine is available`)
      return container
    }
    return processRuntime
  }
  const backendFor = (config: SlotConfig, provider: Provider): Backend =>
    config.backend ?? options.defaultBackend?.(config, provider) ?? 'cpu'

  // What the slot will really use, so that status output shows it (not "default").
  const effective = (config: SlotConfig): SlotConfig => {
    const provider = providers.get(config.provider)
    return {
      ...config,
      backend: config.backend ?? (provider ? backendFor(config, provider) : 'cpu'),
      runtime: config.runtime ?? 'process',
    }
  }
  const { configs, errors } = await readSlotConfigDir(options.configDir)
  const createDriver = (config: SlotConfig) => {
    try {
      const provider = providerFor(config)
      return createSlotDriver({
        config,
        provider,
        runtime: runtimeFor(config),
        models: store,
        backend: backendFor(config, provider),
      })
    } catch (error) {
      return unavailableDriver(error)
    }
  }
  const resolveModel = async (id: string, config: SlotConfig): Promise<ModelEntry> => {
    const provider = providerFor(config)
    const entry = await store.resolve(id)
    const builtin = ['llm', 'image', 'stt', 'tts']
    if (
      builtin.includes(config.provider) &&
      builtin.includes(entry.provider) &&
      entry.provider !== config.provider
    ) {
      throw new SvcError(
        'request.invalid',
        `model "${entry.id}" is for the ${entry.provider} provider; slot "${config.name}" runs ${config.provider}`,
        { param: 'model' },
      )
    }
    const refusal = provider.refuseModel?.(entry)
    if (refusal) throw new SvcError('request.invalid', refusal, { param: 'model' })
    return entry
  }
  const manager = new SlotManager({
    configs: configs.map(effective),
    bus,
    clock,
    createDriver,
    resolveModel,
    ...(options.slotOptions ? { slotOptions: options.slotOptions } : {}),
  })
  return {
    manager,
    store,
    bus,
    providers,
    imageCache,
    configErrors: errors,
    resolveModel,
    provider: providerFor,
    configure: (config) => manager.configure(effective(config)),
  }
}

/** A slot whose provider or runtime cannot exist here still lists; loading it fails with the reason. */
function unavailableDriver(error: unknown) {
  const fail = async (): Promise<never> => {
    throw error
  }
  return {
    warmupTimeoutMs: 0,
    needsPull: async () => false,
    pull: fail,
    start: fail,
    probe: async () => false,
  }
}
