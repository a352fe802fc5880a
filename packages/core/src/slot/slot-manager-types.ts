/** The slot manager's options and the shapes of its answers (`slot-manager.ts`). */
import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { SlotDriver } from '../slot-driver'
import type { LoadAdmission } from './load-admission'
import type { SlotOptions } from './slot'

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
