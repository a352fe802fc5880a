/**
 * Live figures per slot for the dashboard (`slot.metrics` events, and `metrics` in `GET /api/slots`):
 * requests per minute, median latency and generation speed over the last minute, the same minute in
 * twelve 5 s buckets (`series`: requests and tokens/s per bucket, for sparklines; buckets on the
 * wall clock's 5 s marks, the one of now last), and since when the upstream is ready. Fed by the dispatcher's records (four numbers written into a ring per request:
 * the hot path allocates nothing, and no per-request object outlives its request) and the slot
 * transitions; published on the bus every `intervalMs` when a figure changed. Memory is bounded: at
 * most `maxSamples` requests per slot are kept.
 */
import {
  type EventBus,
  SERIES_BUCKET_MS,
  SERIES_BUCKETS,
  type SlotLiveMetrics,
  type SlotMetricsSeries,
  type SvcEvents,
} from '@svc/core'
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
    const at = now()
    const cutoff = at - WINDOW_MS
    // The first bucket's start: the 5 s mark SERIES_BUCKETS − 1 marks before the one of now.
    const firstBucket = (Math.floor(at / SERIES_BUCKET_MS) - (SERIES_BUCKETS - 1)) * SERIES_BUCKET_MS
    const out: Record<string, SlotLiveMetrics> = {}
    for (const slot of new Set([...samples.keys(), ...readyAt.keys()])) {
      const ring = samples.get(slot)
      ring?.dropBefore(cutoff)
      const ms: number[] = []
      let tokens = 0
      let seconds = 0
      const bucket = new Buckets()
      for (const i of ring?.indexes() ?? []) {
        ms.push(ring!.ms[i]!)
        tokens += ring!.tokens[i]!
        if (ring!.tokens[i]! > 0) seconds += ring!.seconds[i]!
        const k = Math.floor((ring!.at[i]! - firstBucket) / SERIES_BUCKET_MS)
        if (k >= 0 && k < SERIES_BUCKETS) bucket.add(k, ring!.tokens[i]!, ring!.seconds[i]!)
      }
      ms.sort((a, b) => a - b)
      out[slot] = {
        requestsPerMin: ms.length,
        p50Ms: ms.length > 0 ? Math.round(median(ms)) : null,
        tokensPerS: speed(tokens, seconds),
        readyAt: readyAt.get(slot) ?? null,
        series: bucket.series(),
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

/** One slot's minute, bucket by bucket (made when figures are read, never on a request's path). */
class Buckets {
  readonly requests = new Array<number>(SERIES_BUCKETS).fill(0)
  readonly tokens = new Array<number>(SERIES_BUCKETS).fill(0)
  readonly seconds = new Array<number>(SERIES_BUCKETS).fill(0)

  add(k: number, tokens: number, seconds: number): void {
    this.requests[k]!++
    this.tokens[k]! += tokens
    if (tokens > 0) this.seconds[k]! += seconds
  }

  series(): SlotMetricsSeries {
    return {
      bucket_ms: SERIES_BUCKET_MS,
      requests: this.requests,
      tokens_per_second: this.tokens.map((t, k) => speed(t, this.seconds[k]!)),
    }
  }
}

/** Tokens per second to one decimal; null when nothing was generated. */
function speed(tokens: number, seconds: number): number | null {
  return tokens > 0 && seconds > 0 ? Math.round((tokens / seconds) * 10) / 10 : null
}

function median(sorted: number[]): number {
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
