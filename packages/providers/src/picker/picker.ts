/**
 * The picker as the API uses it: detection (cached for `ttlMs`, since it pings the engine and runs
 * `llama-server --list-devices`) plus the pure decision, as one report — what `GET /api/hardware`
 * shows and what slot loads are checked against.
 */
import { type Backend, type ModelEntry, type RuntimeKind, SvcError } from '@svc/core'
import type { Provider } from '../contract'
import type { ImageManifest } from '../manifest/manifest'
import {
  assertBackend,
  decideProvider,
  defaultBackend,
  memoryShortfall,
  type ProviderBackends,
  type ProviderDescriptor,
} from './decide'
import type { HardwareFacts } from './detect'

export interface HardwareReport {
  detectedAt: string
  hardware: HardwareFacts
  /** Per provider kind, per backend it declares: honoured here (and by which runtimes) or why not. */
  providers: Record<string, ProviderBackends>
  /** Per provider kind, the backend a slot without one gets; null when none can be honoured. */
  defaults: Record<string, Backend | null>
}

/** The host program each built-in provider's process runtime runs. */
export const HOST_PROGRAMS: Readonly<Record<string, string>> = {
  llm: 'llama-server',
  stt: 'whisper-server',
  // The tts slot's host engine is svc's own speech server over espeak-ng: espeak-ng is what it needs.
  tts: 'espeak-ng',
  npu: 'flm',
}

/** A provider as the picker sees it. `hostProgram` defaults from `HOST_PROGRAMS` by kind. */
export function describeProvider(
  provider: Provider,
  hostProgram = HOST_PROGRAMS[provider.kind],
): ProviderDescriptor {
  return {
    kind: provider.kind,
    backends: provider.backends,
    ...(provider.image ? { image: (b: Backend) => provider.image?.(b) } : {}),
    ...(hostProgram ? { hostProgram } : {}),
  }
}

/** Builds the report from facts. Pure. */
export function buildHardwareReport(
  facts: HardwareFacts,
  manifest: ImageManifest | undefined,
  providers: readonly ProviderDescriptor[],
  now: Date = new Date(),
): HardwareReport {
  const decided: Record<string, ProviderBackends> = {}
  const defaults: Record<string, Backend | null> = {}
  for (const p of providers) {
    decided[p.kind] = decideProvider(facts, manifest, p)
    defaults[p.kind] = defaultBackend(p.kind, decided[p.kind] ?? {}) ?? null
  }
  return { detectedAt: now.toISOString(), hardware: facts, providers: decided, defaults }
}

export interface PickerOptions {
  detect: () => Promise<HardwareFacts>
  manifest?: ImageManifest
  providers: readonly ProviderDescriptor[]
  /** How long a detection is reused (ms). Default 30 s. */
  ttlMs?: number
  clock?: () => number
}

export interface Picker {
  /**
   * The current report; detects again when older than the TTL or when `refresh` is set. A detection
   * still running is shared by every call (refresh included): at most one runs at a time.
   */
  report(options?: { refresh?: boolean }): Promise<HardwareReport>
  /** Throws `backend.unavailable` (409) with the reason when `kind` cannot use `backend` (and `runtime`). */
  assertBackend(kind: string, backend: Backend, runtime?: RuntimeKind): Promise<void>
  /** The backend for a slot that names none; throws `backend.unavailable` when nothing is honoured. */
  chooseBackend(kind: string): Promise<Backend>
  /** Throws `backend.unavailable` when the machine has too little memory for `model`. */
  assertModelFits(model: Pick<ModelEntry, 'id' | 'minVramGb'>): Promise<void>
}

export function createPicker(options: PickerOptions): Picker {
  const clock = options.clock ?? Date.now
  const ttl = options.ttlMs ?? 30_000
  let cached: { at: number; report: Promise<HardwareReport> } | undefined
  // A detection that has not finished: every caller, refresh or not, shares it. So `?refresh=1` in a
  // loop or from many clients at once runs one detection at a time, never one per call.
  let running: Promise<HardwareReport> | undefined

  const report = (opts: { refresh?: boolean } = {}) => {
    if (running) return running
    if (!cached || opts.refresh || clock() - cached.at > ttl) {
      const at = clock()
      const pending = options
        .detect()
        .then((facts) => buildHardwareReport(facts, options.manifest, options.providers, new Date(at)))
      // A failed detection is not cached: the next call tries again.
      pending.catch(() => {
        if (cached?.report === pending) cached = undefined
      })
      cached = { at, report: pending }
      running = pending
      const done = () => {
        if (running === pending) running = undefined
      }
      pending.then(done, done)
    }
    return cached.report
  }

  return {
    report,
    async assertBackend(kind, backend, runtime) {
      assertBackend((await report()).providers, kind, backend, runtime)
    },
    async chooseBackend(kind) {
      const r = await report()
      const chosen = r.defaults[kind]
      if (chosen) return chosen
      const reasons = Object.entries(r.providers[kind] ?? {})
        .map(([b, v]) => `${b}: ${v && !v.ok ? v.reason : 'ok'}`)
        .join('; ')
      throw new SvcError(
        'backend.unavailable',
        `no backend of ${kind} can be honoured here (${reasons || 'unknown provider'})`,
      )
    },
    async assertModelFits(model) {
      const reason = memoryShortfall(model, (await report()).hardware)
      if (reason) {
        throw new SvcError('backend.unavailable', reason)
      }
    },
  }
}
