/**
 * Runtimes say *where* an upstream runs: `process` (a host binary), `container` (Docker Engine API,
 * image pinned by digest), `remote` (already running at a URL). Each builds the provider's
 * `SlotContext` for its own world (host path vs. mount path, 127.0.0.1:<free> vs. a published port),
 * then launches `provider.startCommand(ctx)` with `provider.buildEnv(ctx)`.
 */
import type { Backend, LlmRole, ModelEntry, PullProgress, RuntimeKind, UpstreamHandle } from '@svc/core'
import type { Provider } from '../contract'

export interface RuntimeStartRequest {
  slot: string
  provider: Provider
  model: ModelEntry
  backend: Backend
  role?: LlmRole
  ctxSize?: number
  args: readonly string[]
  signal: AbortSignal
  /**
   * How many upstreams: a swarm service's tasks, or local replicas (`local-replicas.ts`: one per
   * entry of `devices`, else `replicas` on the slot's backend). Swarm: placement constraints.
   */
  replicas?: number
  devices?: readonly string[]
  constraints?: readonly string[]
  /** Environment on top of the provider's (a local replica's device selection). */
  env?: Readonly<Record<string, string>>
  /** The key the upstream requires, when the caller chose it (replicas share one); else a new one. */
  apiKey?: string
}

export interface Runtime {
  readonly kind: RuntimeKind
  /** Whether `start` needs a pull first (e.g. the container image is not present). Default false. */
  needsPull?(request: RuntimeStartRequest): Promise<boolean>
  /** Fetches what `start` needs (e.g. pulls the image by digest), reporting aggregated progress. */
  pull?(request: RuntimeStartRequest, onProgress: (p: PullProgress) => void): Promise<void>
  /** Launches the upstream; resolves once launched (not yet healthy). Rejects with a clear Error. */
  start(request: RuntimeStartRequest): Promise<UpstreamHandle>
  /**
   * Finds what a previous run of svc left for `slot`: returns it when `isHealthy` says so (adopt),
   * otherwise stops and removes it and returns undefined. Never leaves an orphan.
   */
  recover?(
    slot: string,
    isHealthy: (handle: UpstreamHandle) => Promise<boolean>,
    signal: AbortSignal,
  ): Promise<{ modelId: string; handle: UpstreamHandle } | undefined>
}

/** Longest log line kept (characters); the rest of a longer line is dropped and marked `…`. */
export const LOG_LINE_MAX = 2000

/**
 * A bounded buffer of the last log lines of an upstream. Bounded in lines and in line length, the
 * line still being written (no newline yet) included: an upstream that writes without newlines
 * cannot grow it, and each chunk costs its own length, not the line's so far.
 */
export class LogRing {
  private readonly lines: string[] = []
  private partial = ''
  constructor(private readonly max = 500) {}

  push(chunk: string): void {
    let start = 0
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      this.append(chunk.slice(start, nl))
      this.lines.push(capped(this.partial))
      this.partial = ''
      if (this.lines.length > this.max) this.lines.shift()
      start = nl + 1
    }
    this.append(chunk.slice(start))
  }

  /** Keeps one character past the cap, so `capped` knows the line was longer. */
  private append(text: string): void {
    const room = LOG_LINE_MAX + 1 - this.partial.length
    if (room > 0) this.partial += text.length > room ? text.slice(0, room) : text
  }

  snapshot(): string[] {
    return this.partial ? [...this.lines, capped(this.partial)] : [...this.lines]
  }

  /** The last non-empty line, for error messages. */
  last(): string | undefined {
    const all = this.snapshot()
    for (let i = all.length - 1; i >= 0; i--) if (all[i]?.trim()) return all[i]?.trim()
    return undefined
  }
}

function capped(line: string): string {
  return line.length > LOG_LINE_MAX ? `${line.slice(0, LOG_LINE_MAX)}…` : line
}
