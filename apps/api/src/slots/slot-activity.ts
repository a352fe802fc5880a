/**
 * Live figures per slot for the dashboard (`slot.metrics` events, and `metrics` in `GET /api/slots`):
 * requests per minute, median latency and generation speed over the last minute, and since when the
 * upstream is ready. Fed by the dispatcher's records (four numbers written into a ring per request:
 * the hot path allocates nothing, and no per-request object outlives its request) and the slot
 * transitions; published on the bus every `intervalMs` when a figure changed. Memory is bounded: at
 * most `maxSamples` requests per slot are kept.
 */
import type { EventBus, SlotLiveMetrics, SvcEvents } from '@svc/core'
import type { DispatchRecord } from '@svc/dispatcher'

const WINDOW_MS = 60_000

/** The last `size` requests of one slot, oldest first from `start`. */
class SampleRing {
  readonly at: Float64Array
  readonly ms: Float64Array
  /**
   * Completion tokens and the time they took: the engine's own generation time when the upstream
   * reports it (llama.cpp `timings`, streamed or not), else the request's whole time.
   */
  readonly tokens: Float64Array
  readonly seconds: Float64Array
  start = 0
  length = 0

  constructor(readonly size: number) {
    this.at = new Float64Array(size)
    this.ms = new Float64Array(size)
    this.tokens = new Float64Array(size)
    this.seconds = new Float64Array(size)
  }

  push(at: number, ms: number, tokens: number, seconds: number): void {
    const i = (this.start + this.length) % this.size
    this.at[i] = at
    this.ms[i] = ms
    this.tokens[i] = tokens
    this.seconds[i] = seconds
    if (this.length < this.size) this.length++
    else this.start = (this.start + 1) % this.size
  }

  /** Forgets the samples taken before `cutoff`. */
  dropBefore(cutoff: number): void {
    while (this.length > 0 && this.at[this.start]! < cutoff) {
      this.start = (this.start + 1) % this.size
      this.length--
    }
  }

  /** Indexes of the kept samples, oldest first. */
  *indexes(): Generator<number> {
    for (let k = 0; k < this.length; k++) yield (this.start + k) % this.size
  }
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
  const samples = new Map<string, SampleRing>()
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
      const ring = samples.get(slot)
      ring?.dropBefore(cutoff)
      const ms: number[] = []
      let tokens = 0
      let seconds = 0
      for (const i of ring?.indexes() ?? []) {
        ms.push(ring!.ms[i]!)
        tokens += ring!.tokens[i]!
        if (ring!.tokens[i]! > 0) seconds += ring!.seconds[i]!
      }
      ms.sort((a, b) => a - b)
      out[slot] = {
        requestsPerMin: ms.length,
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
      let ring = samples.get(r.slot)
      if (!ring) {
        ring = new SampleRing(maxSamples)
        samples.set(r.slot, ring)
      }
      const generation = r.usage?.generationMs
      ring.push(
        now(),
        r.seconds * 1000,
        r.usage?.completionTokens ?? 0,
        generation !== undefined ? generation / 1000 : r.seconds,
      )
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
