/**
 * The keys of a slot file that let a slot manage itself (docs/self-managing-slots.md): load a model
 * a request names, unload when idle, and queue requests without thrashing between two models. All
 * opt-in: a slot file without them behaves as before (`model.not_loaded`, loaded until unloaded).
 */
import * as v from 'valibot'

/**
 * A duration: a number of seconds (`90`, `"1.5"`), or one or more `<number><unit>` parts in Go's
 * form, the form Ollama's `keep_alive` takes too (`"15m"`, `"1h30m"`, `"500ms"`; units ns, us, ms,
 * s, m, h). Unsigned: `0` means never where a key says so.
 */
const SECONDS = /^(\d+(?:\.\d*)?|\.\d+)$/
const DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)\s*(?:ns|us|µs|μs|ms|s|m|h))+$/
const PART = /(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|µs|μs|ms|s|m|h)/g
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
}

/** Parses a duration (see `DURATION`) to whole ms; undefined when it is not one. */
export function parseDurationMs(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined
  const text = value.trim()
  if (SECONDS.test(text)) return Math.round(Number(text) * 1_000)
  if (!DURATION.test(text)) return undefined
  let ms = 0
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit!]!
  return Math.round(ms)
}

const duration = v.pipe(
  v.union([v.string(), v.number()]),
  v.check((x) => parseDurationMs(x) !== undefined, 'a duration like "15m", "90s" or 0'),
)
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000))

/** Schema entries spread into `SlotConfigFileSchema`. */
export const DEMAND_FILE_ENTRIES = {
  load_on_request: v.optional(v.boolean()),
  pull_on_request: v.optional(v.boolean()),
  accepts: v.optional(v.array(v.pipe(v.string(), v.minLength(1, 'a model ref')))),
  unload_after: v.optional(duration),
  pinned: v.optional(v.boolean()),
  max_concurrent: v.optional(count),
  max_queue: v.optional(count),
  max_swap_wait: v.optional(duration),
  max_loaded: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(64))),
}

type DemandFile = { [K in keyof typeof DEMAND_FILE_ENTRIES]?: v.InferOutput<(typeof DEMAND_FILE_ENTRIES)[K]> }

/**
 * What a slot does on its own. Undefined `loadOnRequest` / `unloadAfterMs` follow the global
 * defaults (`SVC_LOAD_ON_REQUEST`, `SVC_UNLOAD_AFTER`), applied by the slot manager.
 */
export interface SlotDemandConfig {
  loadOnRequest?: boolean
  /** May a load on request pull a model that is not on disk yet (a catalogue entry). */
  pullOnRequest: boolean
  /** The only refs this slot loads on request (and refs listed here go to this slot first). */
  accepts?: string[]
  /** Unload after this long without a request (ms); 0 never. */
  unloadAfterMs?: number
  /** Never unloaded when idle, never evicted to make room for another slot's load. */
  pinned: boolean
  /** Requests in flight at once; beyond it they wait in the slot's queue. 0: no limit. */
  maxConcurrent: number
  /** Requests waiting at once; beyond it 429 `slot.busy`. 0: no limit. */
  maxQueue: number
  /** How long requests for the loaded model keep a waiting other model from its swap (ms). */
  maxSwapWaitMs: number
  /**
   * How many models this slot and its spare slots (`<slot>-2`, `-3`, …) may hold at once, when
   * memory allows (`spare-plan.ts`); 1: one model, swapped on demand. Unset: `DEFAULT_MAX_LOADED`.
   */
  maxLoaded?: number
}

/** Default of `max_swap_wait`: long enough to batch, short enough that nobody notices starving. */
export const DEFAULT_MAX_SWAP_WAIT_MS = 10_000

export function resolveDemand(raw: DemandFile): SlotDemandConfig {
  const out: SlotDemandConfig = {
    pullOnRequest: raw.pull_on_request ?? false,
    pinned: raw.pinned ?? false,
    maxConcurrent: raw.max_concurrent ?? 0,
    maxQueue: raw.max_queue ?? 0,
    maxSwapWaitMs:
      raw.max_swap_wait === undefined ? DEFAULT_MAX_SWAP_WAIT_MS : parseDurationMs(raw.max_swap_wait)!,
  }
  if (raw.load_on_request !== undefined) out.loadOnRequest = raw.load_on_request
  if (raw.accepts) out.accepts = raw.accepts
  if (raw.unload_after !== undefined) out.unloadAfterMs = parseDurationMs(raw.unload_after)!
  if (raw.max_loaded !== undefined) out.maxLoaded = raw.max_loaded
  return out
}

/** The file's spelling of `demand`, omitting defaults. */
export function stringifyDemand(d: SlotDemandConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (d.loadOnRequest !== undefined) out.load_on_request = d.loadOnRequest
  if (d.pullOnRequest) out.pull_on_request = true
  if (d.accepts) out.accepts = d.accepts
  if (d.unloadAfterMs !== undefined) out.unload_after = formatDuration(d.unloadAfterMs)
  if (d.pinned) out.pinned = true
  if (d.maxConcurrent) out.max_concurrent = d.maxConcurrent
  if (d.maxQueue) out.max_queue = d.maxQueue
  if (d.maxSwapWaitMs !== DEFAULT_MAX_SWAP_WAIT_MS) out.max_swap_wait = formatDuration(d.maxSwapWaitMs)
  if (d.maxLoaded !== undefined) out.max_loaded = d.maxLoaded
  return out
}

function formatDuration(ms: number): string | number {
  if (ms === 0) return 0
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}
