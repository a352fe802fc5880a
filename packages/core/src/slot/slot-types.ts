import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry, PullProgress } from '../models'
import type { SlotConfig } from '../slot-config'
import type { SlotDriver } from '../slot-driver'
import type { SlotState } from '../slot-states'
import type { RouteHints } from './replica-routing'
import type { ReplicaStatus } from './replica-set'

export interface SlotSnapshot {
  name: string
  provider: string
  backend: string | null
  runtime: string | null
  state: SlotState
  /** The model loaded, loading or unloading; null when offline. */
  model: string | null
  inflight: number
  lastError: string | null
  /** Epoch ms of the last transition. */
  since: number
  progress: PullProgress | null
  restarts: number
  upstream: Record<string, string | number> | null
  /** Replicas (a swarm service, a remote slot): health, latency and load of each; null otherwise. */
  replicas: ReplicaStatus[] | null
}

export interface Lease {
  /** Where to send the request. */
  readonly base: URL
  readonly model: ModelEntry
  /** The upstream's own key (`UpstreamHandle.apiKey`), to send as `Authorization: Bearer`. */
  readonly apiKey?: string
  /** Idempotent. */
  release(): void
  /**
   * Replicas only: the request could not reach this replica (connection refused, reset before an
   * answer). It is taken out of rotation until its health probe passes again.
   */
  fail?(reason: string): void
}

/** What `Slot.acquire` is asked with. */
export interface SlotAcquireOptions {
  signal?: AbortSignal
  /** Longest wait for a loading slot (ms). */
  timeoutMs: number
  /** For a slot with replicas that routes by cache: the request's prompt prefix and session. */
  hints?: RouteHints
}

export interface SlotOptions {
  config: SlotConfig
  driver: SlotDriver
  bus: EventBus<SvcEvents>
  clock: Clock
  /** How long `unload` waits for in-flight requests (ms). Default 30 s. */
  drainMs?: number
  /** Polite-stop grace before the runtime kills the upstream (ms). Default 10 s. */
  stopGraceMs?: number
  /** The longest wait between health probes while warming (ms; the first are shorter). Default 200. */
  probeIntervalMs?: number
  /** First restart delay (ms), doubled per attempt up to `restartMaxDelayMs`. Default 1 s / 60 s. */
  restartBaseDelayMs?: number
  restartMaxDelayMs?: number
  /** An upstream that ran this long before crashing resets the restart count (ms). Default 60 s. */
  restartResetMs?: number
  /** Between health rounds of a slot's replicas (ms). Default 2 s. */
  replicaProbeMs?: number
  /** Rounds with no healthy replica before the slot goes offline. Default 3. */
  replicaDownAfter?: number
}

/** The defaults of {@link SlotOptions}' timings. */
export const SLOT_DEFAULTS = {
  drainMs: 30_000,
  stopGraceMs: 10_000,
  probeIntervalMs: 200,
  restartBaseDelayMs: 1_000,
  restartMaxDelayMs: 60_000,
  restartResetMs: 60_000,
  replicaProbeMs: 2_000,
  replicaDownAfter: 3,
} as const satisfies Required<Omit<SlotOptions, 'config' | 'driver' | 'bus' | 'clock'>>
