/**
 * Live figures per slot for the dashboard (`slot.metrics` events, and `metrics` in `GET /api/slots`):
 * requests per minute, median latency and generation speed over the last minute, and since when the
 * upstream is ready. Fed by the dispatcher's records (one array push per request: the hot path pays
 * nothing more) and the slot transitions; published on the bus every `intervalMs` when a figure
 * changed. Memory is bounded: at most `maxSamples` requests per slot are kept.
 */
import type { EventBus, SlotLiveMetrics, SvcEvents } from '@svc/core'
import type { DispatchRecord } from '@svc/dispatcher'

const WINDOW_MS = 60_000

interface Sample {
  at: number
  ms: number
  /**
   * Completion tokens and the time they took: the engine's own generation time when the upstream
   * reports it (llama.cpp `timings`, streamed or not), else the request's whole time.
   */
  tokens: number
  seconds: number
}

export interface SlotActivity {
  /** The dispatcher's `observe` hook. */
  record(record: DispatchRecord): void
  /** Current figures of every slot seen (or running). */
  current(): Record<string, SlotLiveMetrics>
  /** Stops the publishing timer. */
  stop(): void
}

export interface SlotActivityOptions {
  bus: EventBus<SvcEvents>
  now?: () => number
  intervalMs?: number
  maxSamples?: number
}

export function createSlotActivity(options: SlotActivityOptions): SlotActivity {
  const now = options.now ?? Date.now
  const maxSamples = options.maxSamples ?? 512
  const samples = new Map<string, Sample[]>()
  const readyAt = new Map<string, number>()
  let published = ''

  const offTransition = options.bus.on('slot.transition', (e) => {
    if (e.to === 'ready' && (e.from === 'warming' || !readyAt.has(e.slot))) readyAt.set(e.slot, e.at)
    if (e.to === 'offline') readyAt.delete(e.slot)
  })

  function current(): Record<string, SlotLiveMetrics> {
    const cutoff = now() - WINDOW_MS
    const out: Record<string, SlotLiveMetrics> = {}
    for (const slot of new Set([...samples.keys(), ...readyAt.keys()])) {
      const list = samples.get(slot) ?? []
      while (list.length > 0 && list[0]!.at < cutoff) list.shift()
      const ms = list.map((s) => s.ms).sort((a, b) => a - b)
      const tokens = list.reduce((n, s) => n + s.tokens, 0)
      const seconds = list.reduce((n, s) => n + (s.tokens > 0 ? s.seconds : 0), 0)
      out[slot] = {
        requestsPerMin: list.length,
        p50Ms: ms.length > 0 ? Math.round(median(ms)) : null,
        tokensPerS: tokens > 0 && seconds > 0 ? Math.round((tokens / seconds) * 10) / 10 : null,
        readyAt: readyAt.get(slot) ?? null,
      }
    }
    return out
  }

  const timer = setInterval(() => {
    const slots = current()
    const text = JSON.stringify(slots)
    if (text === published) return
    published = text
    options.bus.emit('slot.metrics', { at: now(), slots })
  }, options.intervalMs ?? 2_000)
  timer.unref()

  return {
    record(r) {
      // Hosted upstreams are not slots; a request refused before any upstream answered measures nothing.
      if (r.slot === '-' || r.slot.startsWith('upstream:')) return
      if (r.ttfbSeconds === undefined && r.outcome !== 'ok') return
      let list = samples.get(r.slot)
      if (!list) {
        list = []
        samples.set(r.slot, list)
      }
      const tokens = r.usage?.completionTokens ?? 0
      const generation = r.usage?.generationMs
      list.push({
        at: now(),
        ms: r.seconds * 1000,
        tokens,
        seconds: generation !== undefined ? generation / 1000 : r.seconds,
      })
      if (list.length > maxSamples) list.shift()
    },
    current,
    stop() {
      clearInterval(timer)
      offTransition()
    },
  }
}

function median(sorted: number[]): number {
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
