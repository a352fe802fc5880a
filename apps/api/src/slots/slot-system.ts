/**
 * Wires the slot machinery: config dir → SlotManager, each slot's driver built from its provider
 * (built-in or third-party), its placement (backend and runtime: config first, then the picker's
 * choice for this machine) and its runtime; the model store; one event bus. Only apps wire core's
 * slots to the providers and runtimes of `@svc/providers` (core never imports them).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Clock,
  createEventBus,
  type EventBus,
  type LoadOptions,
  type ModelEntry,
  type RuntimeKind,
  type SlotConfig,
  type SlotConfigError,
  type SlotConfigProblem,
  SlotManager,
  type SlotOptions,
  type SlotStatus,
  SvcError,
  type SvcEvents,
  systemClock,
} from '@svc/core'
import type { Logger } from '@svc/core/node'
import { readSlotConfigDir } from '@svc/core/node'
import {
  createImageCache,
  createImageProvider,
  createLlmProvider,
  createNpuProvider,
  createPicker,
  createSlotDriver,
  createSttProvider,
  createTtsProvider,
  createVoiceStore,
  describeProvider,
  type HardwareFacts,
  type ImageCache,
  npuModelEntries,
  type Picker,
  type Provider,
  type Runtime,
  type VoiceStore,
} from '@svc/providers'
import type { ImageManifest } from '@svc/providers/manifest'
import { type MemoryDeviceOptions, memoryDevices } from '@svc/providers/memory'
import { type HubConfig, loadCatalogue, ModelStore, type PresetTable } from '@svc/providers/models'
import { createMemoryBudget, type MemoryBudget } from './memory-budget'
import { createModelRoutedRuntime } from './model-runtime'
import { createPlacer } from './placement'
import { describeWithPresets, resolveWithPresets } from './preset-models'
import { remoteProvider } from './remote-model'
import { createModelResolver } from './resolve-model'
import { createRuntimes } from './runtimes'

export const DEFAULT_CATALOGUE = fileURLToPath(new URL('../../../../manifests/models.toml', import.meta.url))
export const DEFAULT_WORKFLOWS = fileURLToPath(new URL('../../../../workflows', import.meta.url))

/**
 * Kinds the picker decides for (it knows their host programs and images). Others — third-party
 * providers, the espeak TTS engine that runs on any host — are not second-guessed: their slots
 * default to cpu on the host, and a missing program is reported when the load starts it.
 */
const PICKED_KINDS = new Set(['llm', 'image', 'npu', 'stt'])

export interface SlotSystemOptions {
  configDir: string
  stateDir: string
  /** Providers beyond the built-ins (third-party), by kind. A kind given here replaces a built-in. */
  providers?: Provider[]
  /** The curated catalogue (default `manifests/models.toml`; SVC_MODELS_MANIFEST overrides). */
  catalogueFile?: string
  /** The Hugging Face Hub for `hf.co/…` names (HF_ENDPOINT, HF_TOKEN); default huggingface.co, no token. */
  hub?: HubConfig
  clock?: Clock
  /** The server's environment (`ServeEnv.processEnv`): engine lookup and what upstreams inherit. */
  env: Readonly<Record<string, string | undefined>>
  slotOptions?: Partial<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>>
  /** Generated images: `<state>/images/cache`, bounded (defaults: 2 GiB, 7 days). */
  imageCache?: { maxBytes?: number; maxAgeMs?: number }
  workflowsDir?: string
  /** Hardware detection for the picker; without it every slot defaults to cpu on the host. */
  hardware?: { detect: () => Promise<HardwareFacts>; manifest?: ImageManifest }
  /** The container runtime, when this server has a container engine and an image manifest. */
  container?: Runtime
  /** The swarm runtime (same engine, as a swarm manager). */
  swarm?: Runtime
  /** Other svc processes running on this state dir now; while any does, recovery touches nothing. */
  othersLive?: () => Promise<readonly number[]>
  /** SVC_MEMORY_RESERVE_GB / SVC_MEMORY_BUDGET_GB, parsed. */
  memory?: MemoryDeviceOptions
  /** SVC_LOAD_ON_REQUEST / SVC_UNLOAD_AFTER: defaults for slot files that leave them unset. */
  demand?: { loadOnRequest?: boolean; unloadAfterMs?: number }
  logger?: Logger
  /** The presets in use (`<config>/presets.toml`, `presets-watch.ts`): loads of a preset's name follow it. */
  presets?: () => PresetTable
}

export type { SlotConfigProblem, SlotStatus }

export interface SlotSystem {
  manager: SlotManager
  store: ModelStore
  bus: EventBus<SvcEvents>
  providers: Map<string, Provider>
  /** Where `/v1/images/*` results are kept (served at `/api/images/cache/<uuid>.png`). */
  imageCache: ImageCache
  /** Voice references uploaded for the voice-cloning TTS model (`<state>/voices/`). */
  voices: VoiceStore
  /** Hardware and backends per provider (`GET /api/hardware`); absent without detection. */
  picker?: Picker
  /** The memory budget across slots (`GET /api/hardware` → `memory`). */
  memory: MemoryBudget
  /** Slot config files that did not parse (their slots keep the defaults). */
  configErrors: SlotConfigError[]
  /** Resolves a model for a slot, refusing models its provider or this machine cannot serve. */
  resolveModel(id: string, config: SlotConfig, options?: LoadOptions): Promise<ModelEntry>
  provider(config: SlotConfig): Provider
  /** Applies a (new or changed) slot config: defaults resolved, effective at the next load. */
  configure(config: SlotConfig): void
  /** Refused edits of slot config files, by slot (kept by the config watcher). */
  configProblems: Map<string, SlotConfigProblem>
  /** One slot's status (throws `slot.not_found`). */
  status(name: string): SlotStatus
  /** Every slot's status, in the manager's order. */
  statuses(): SlotStatus[]
}

export async function createSlotSystem(options: SlotSystemOptions): Promise<SlotSystem> {
  const bus = createEventBus<SvcEvents>()
  const catalogue = await loadCatalogue(options.catalogueFile ?? DEFAULT_CATALOGUE)
  if (catalogue.errors.length > 0) throw new Error(catalogue.errors.join('\n'))
  const store = await ModelStore.open({
    stateDir: options.stateDir,
    catalogue: catalogue.entries,
    models: npuModelEntries(),
    ...(options.hub ? { hub: options.hub } : {}),
  })
  const imageCache = createImageCache({
    dir: join(options.stateDir, 'images', 'cache'),
    maxBytes: options.imageCache?.maxBytes ?? 2 * 1024 ** 3,
    maxAgeMs: options.imageCache?.maxAgeMs ?? 7 * 24 * 3600_000,
  })
  const voices = createVoiceStore({ dir: join(options.stateDir, 'voices') })
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
        // The comfyui-rocm container's output volume (manifests/images.toml): svc removes the files
        // ComfyUI writes there for each request once they are in its own bounded cache.
        outputDir: join(options.stateDir, 'volumes', 'comfyui', 'output'),
      }),
    ],
    ['npu', createNpuProvider()],
    ['stt', createSttProvider()],
    ['tts', createTtsProvider({ voices })],
  ])
  for (const p of options.providers ?? []) providers.set(p.kind, p)

  const picker = options.hardware
    ? createPicker({
        detect: options.hardware.detect,
        ...(options.hardware.manifest ? { manifest: options.hardware.manifest } : {}),
        providers: [...providers.values()]
          .filter((p) => PICKED_KINDS.has(p.kind))
          .map((p) => describeProvider(p)),
      })
    : undefined
  const placer = await createPlacer(picker)
  const runtimes = createRuntimes({
    stateDir: options.stateDir,
    env: options.env,
    ...(options.container ? { container: options.container } : {}),
    ...(options.swarm ? { swarm: options.swarm } : {}),
    ...(options.othersLive ? { othersLive: options.othersLive } : {}),
  })

  const providerFor = (config: SlotConfig): Provider => {
    const p = providers.get(config.provider)
    if (p) return config.runtime === 'remote' ? remoteProvider(p) : p
    const known = [...providers.keys()].join(', ')
    throw new SvcError(
      'backend.unavailable',
      `slot "${config.name}": no provider "${config.provider}" is installed (known: ${known})`,
    )
  }
  // What the slot will really use, so that status output shows it (not "default"). A slot whose
  // runtime follows its model shows none: the upstream's pid or container says where it runs.
  const effective = (config: SlotConfig): SlotConfig => {
    const { backend, runtime } = placer.place(config)
    const follows = !config.runtime && providers.get(config.provider)?.runtimeFor !== undefined
    return { ...config, backend, ...(follows ? {} : { runtime }) }
  }
  const runtimeFor = (config: SlotConfig, provider: Provider, placed: RuntimeKind): Runtime => {
    const routes = provider.runtimeFor
    if (config.runtime || !routes) return runtimes.runtimeFor(config, placed)
    const kindOf = (model: ModelEntry) => routes(model) ?? placed
    return createModelRoutedRuntime({
      kind: placed,
      runtimeOf: (model) => runtimes.runtimeFor(config, kindOf(model)),
      candidates: () =>
        (['container', 'process'] as const).flatMap((kind) => {
          try {
            return [runtimes.runtimeFor(config, kind)]
          } catch {
            return [] // no container engine here: nothing of it to recover
          }
        }),
    })
  }
  const createDriver = (config: SlotConfig) => {
    try {
      const provider = providerFor(config)
      const { backend, runtime } = placer.place(config)
      return createSlotDriver({
        config,
        provider,
        runtime: runtimeFor(config, provider, runtime),
        models: store,
        backend,
      })
    } catch (error) {
      return unavailableDriver(error)
    }
  }
  const resolveFile = createModelResolver({ store, providerFor, placer })
  const resolveModel = options.presets ? resolveWithPresets(resolveFile, options.presets) : resolveFile
  const { configs, errors } = await readSlotConfigDir(options.configDir)
  const memory = createMemoryBudget({
    manager: () => manager,
    devices: async () => (picker ? memoryDevices((await picker.report()).hardware, options.memory) : []),
    place: placer.place,
    bus,
    ...(options.logger ? { logger: options.logger } : {}),
  })
  const manager: SlotManager = new SlotManager({
    configs: configs.map(effective),
    bus,
    clock: options.clock ?? systemClock,
    createDriver,
    resolveModel,
    admission: memory,
    describeModel: options.presets
      ? describeWithPresets(store.hubNames.describe, options.presets)
      : store.hubNames.describe,
    ...(options.demand ? { demandDefaults: options.demand } : {}),
    ...(options.slotOptions ? { slotOptions: options.slotOptions } : {}),
  })
  const configProblems = new Map<string, SlotConfigProblem>()
  const status = (name: string): SlotStatus => ({
    ...manager.get(name).snapshot(),
    queue: manager.queue(name),
    configError: configProblems.get(name) ?? null,
    spare_of: manager.spareOf(name) ?? null,
  })
  return {
    manager,
    store,
    bus,
    providers,
    imageCache,
    voices,
    ...(picker ? { picker } : {}),
    memory,
    configErrors: errors,
    resolveModel,
    provider: providerFor,
    configure: (config) => manager.configure(effective(config)),
    configProblems,
    status,
    statuses: () => manager.names().map(status),
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
