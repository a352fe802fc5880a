/**
 * The fields issue 39 adds to a slot (`GET /api/slots` and the event stream's slot objects; see
 * docs/api.md): what it serves, whether it can run here, the memory and context of what it holds, and
 * the last minute's series. Read here in one place, each optional, so the card works against an API
 * that does not send them yet (it then shows less, never a guess: whether a slot runs here is the
 * API's verdict, not the dashboard's).
 */
import type { SlotFacts, SlotMetricsSeries } from '@svc/core'

// The shapes are core's (`SlotFacts`, `SlotMetricsSeries`: what the API sends); each field is read
// as optional here.
export type BackendVerdict = SlotFacts['runnable']['backends'][number]
export type Runnable = SlotFacts['runnable']
export type SlotMemory = NonNullable<SlotFacts['memory']>
export type SlotSeries = SlotMetricsSeries

export interface SlotExtras {
  serves: string[] | null
  runnable: Runnable | null
  memory: SlotMemory | null
  /** Tokens of context the loaded upstream runs with. */
  context_size: number | null
}

type Loose = Record<string, unknown> | null | undefined

/**
 * The extras of one slot from the freshest source that has them: `view` (`GET /api/slots`, refetched
 * after every state change) before `live` (the last snapshot).
 */
export function extrasOf(view: object | undefined, live: object | undefined): SlotExtras {
  const pick = <T>(key: keyof SlotExtras): T | null => {
    for (const source of [view as Loose, live as Loose]) {
      if (source && key in source && source[key] !== undefined) return source[key] as T
    }
    return null
  }
  return {
    serves: pick<string[]>('serves'),
    runnable: pick<Runnable>('runnable'),
    memory: pick<SlotMemory>('memory'),
    context_size: pick<number>('context_size'),
  }
}

/** The last minute's series inside a slot's live metrics, when the API sends it. */
export function seriesOf(metrics: object | null | undefined): SlotSeries | null {
  const series = (metrics as { series?: SlotSeries } | null | undefined)?.series
  return series && Array.isArray(series.requests) ? series : null
}

/** The backends a load may use here: those the picker said yes to (none known: an empty list). */
export function runnableBackends(runnable: Runnable | null): string[] {
  return (runnable?.backends ?? []).filter((b) => b.ok).map((b) => b.backend)
}

const ENGINES: Record<string, string> = {
  llm: 'llama.cpp',
  npu: 'FastFlowLM',
  stt: 'whisper.cpp',
  image: 'ComfyUI',
}

const TTS_ENGINES: Record<string, string> = {
  'espeak-ng': 'eSpeak NG',
  kokoro: 'Kokoro',
  'kokoro-82m': 'Kokoro',
  chatterbox: 'Chatterbox',
}

const DEVICES: Record<string, string> = {
  cpu: 'CPU',
  vulkan: 'GPU (Vulkan)',
  rocm: 'AMD GPU (ROCm)',
  cuda: 'NVIDIA GPU (CUDA)',
  npu: 'NPU',
}

/**
 * Where a slot runs, as a person says it: "llama.cpp on CPU", "ComfyUI on a remote server",
 * "Kokoro on CPU, in a container". `backend`/`runtime` null: chosen at load (not named).
 */
export function runsOn(slot: {
  provider: string
  backend: string | null
  runtime: string | null
  model?: string | null
}): string {
  // A tts slot that names no model runs eSpeak NG on the host (process); in a container, it depends.
  const ttsDefault = slot.runtime === 'process' ? 'eSpeak NG' : 'Text to speech'
  const engine =
    slot.provider === 'tts'
      ? (TTS_ENGINES[slot.model ?? ''] ?? ttsDefault)
      : (ENGINES[slot.provider] ?? slot.provider)
  if (slot.runtime === 'remote') return `${engine} on a remote server`
  const device = slot.backend ? ` on ${DEVICES[slot.backend] ?? slot.backend}` : ''
  const where =
    slot.runtime === 'container' ? ', in a container' : slot.runtime === 'swarm' ? ', on a Docker Swarm' : ''
  return `${engine}${device}${where}`
}

/**
 * Which memory a model sits in, from the memory budget's device ids: "ram" (system or unified
 * memory; "cpu" too) → "RAM", "gpu0" → "GPU 0 memory", anything else as it came.
 */
export function deviceName(device: string): string {
  if (device === 'ram' || device === 'cpu') return 'RAM'
  const gpu = /^gpu(\d+)$/.exec(device)
  if (gpu) return `GPU ${gpu[1]} memory`
  return device
}

/** "8,192 tokens". */
export function contextText(tokens: number): string {
  return `${tokens.toLocaleString('en-US')} tokens`
}
