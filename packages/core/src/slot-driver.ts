/**
 * The port between the SlotManager (core, runtime-neutral) and what actually pulls and runs an
 * upstream (providers + a runtime). Apps build one driver per slot from its provider and runtime; the
 * manager only ever calls these operations, so adding a provider changes no manager code.
 */
import type { ModelEntry, PullProgress } from './models'

export interface UpstreamExit {
  /** Exit code when it exited normally, null otherwise. */
  code: number | null
  signal: string | null
  /** What happened, for `lastError` ("llama-server exited with code 1: <last log line>"). */
  reason: string
}

/** What an upstream really uses in memory, once loaded. */
export interface MemoryUse {
  bytes: number
  /**
   * How it was measured: `rss` (resident set of the process), `gpu` (RSS plus the GPU buffers the
   * kernel reports for it), `container` (the engine's memory figure of the container), `engine` (the
   * upstream's own report).
   */
  by: 'rss' | 'gpu' | 'container' | 'engine'
  /** When known apart: host memory (RSS) and GPU buffers (VRAM + GTT), whose sum is `bytes`. */
  parts?: { host: number; gpu: number }
}

/** One replica behind a handle (a swarm task, one of a remote slot's URLs). */
export interface UpstreamMember {
  /** Stable for the life of that replica (a task id, `host:port` of a URL). */
  readonly id: string
  readonly base: URL
  /** Where it runs, for status output (a swarm node's hostname). */
  readonly node?: string
}

/** A running upstream: a child process, a container, or a remote URL. */
export interface UpstreamHandle {
  /** Where the dispatcher sends requests (scheme, host and port; no path). */
  readonly base: URL
  /**
   * The key svc made for this upstream, which it requires of every client (`Authorization: Bearer`);
   * absent when the upstream takes none. Secret: never in a status, a log or an error.
   */
  readonly apiKey?: string
  /** Settles once when the upstream exits for any reason (also after `stop`). Never rejects. */
  readonly exited: Promise<UpstreamExit>
  /** Stops it: polite signal, then forceful after `graceMs`. Idempotent; resolves once it is gone. */
  stop(graceMs: number): Promise<void>
  /** Identifiers for status output (`pid`, `container`). */
  describe(): Record<string, string | number>
  /** The last lines the upstream wrote (bounded). */
  logs(): string[]
  /** What it uses in memory now; undefined when it cannot be measured (remote, gone). Never throws. */
  memoryUse?(): Promise<MemoryUse | undefined>
  /**
   * Settles when the upstream says itself that it is ready (the process runtime: a line of its log):
   * warming then probes at once instead of at its next poll; the probe still decides. Absent: the
   * probes alone. Never rejects; may never settle.
   */
  readonly saysReady?: Promise<void>
  /**
   * Replicas: the upstreams behind this handle right now (a swarm service's running tasks, a remote
   * slot's URLs); absent for a single upstream. The set may change between calls. Rejects when it
   * cannot be read (the engine does not answer).
   */
  members?(signal: AbortSignal): Promise<readonly UpstreamMember[]>
}

export interface SlotDriver {
  /** Whether `load` must pull first (model file or image missing). */
  needsPull(model: ModelEntry): Promise<boolean>
  /** Downloads what is missing. Resolves with the entry now on disk; rejects with a clear Error. */
  pull(model: ModelEntry, onProgress: (p: PullProgress) => void, signal: AbortSignal): Promise<ModelEntry>
  /** Starts the upstream for `model`; resolves once it is launched (not yet healthy). */
  start(model: ModelEntry, signal: AbortSignal): Promise<UpstreamHandle>
  /** One cheap health probe; true once the upstream is ready to serve. Never throws. */
  probe(handle: UpstreamHandle, signal: AbortSignal): Promise<boolean>
  /** How long warming may take before the load fails (ms). */
  readonly warmupTimeoutMs: number
  /** Finds an upstream a previous run of svc left for this slot: adopts it when healthy, else kills it. */
  recover?(signal: AbortSignal): Promise<{ model: ModelEntry; handle: UpstreamHandle } | undefined>
}
