/**
 * The activity log: requests in flight now and the last few hundred finished, from what the
 * dispatcher already knows of each (its `DispatchRecord`, the quota gate's caller), for the
 * dashboard's Activity page, `GET /api/activity` and the `activity.*` events.
 *
 * Cost per request, by design (the inference hop is measured): `onStart` pushes the dispatcher's own
 * request object onto an array of those in flight (and, with capture on, starts capturing);
 * `observe` finds it by identity (a scan of the few in flight: cheaper than a Map, whose object keys
 * need a hash made in the runtime) and writes one row of figures into a ring of columns
 * (activity-ring.ts). No event is made unless someone listens, and no entry object is made unless
 * someone reads.
 */
import type { IncomingMessage } from 'node:http'
import type { EventBus, SvcEvents } from '@svc/core'
import type { DispatchRecord, StartedRequest } from '@svc/dispatcher'
import { ActivityRing, type RingRow } from './activity-ring'
import type { ActivityAnswer, ActivityCaller, ActivityEntry, CapturedExchange } from './activity-types'
import type { ActivityViewer } from './activity-viewer'
import { type Capture, type CaptureOptions, createCapture } from './capture'
import { surfaceOf } from './surface'

/** Finished requests kept (the ring's size). */
export const ACTIVITY_KEPT = 300

export type ActivityEventType = 'activity.start' | 'activity.update' | 'activity.end'
export type ActivityListener = (type: ActivityEventType, entry: ActivityEntry) => void

export interface ActivityLogOptions {
  /** Slot transitions: a slot that became ready while a request waited made it wait for a load. */
  bus?: EventBus<SvcEvents>
  /** Who a request counts for (the quota gate's subject); absent: nobody is named. */
  subjectOf?: (req: IncomingMessage) => { token: string; identity: string }
  /** A token's label now (tokens.toml), for display. */
  labelOf?: (tokenId: string) => string | undefined
  /** Whether a slot is loading (an in-flight request waiting on it waits for a load). */
  slotLoading?: (slot: string) => boolean
  now?: () => number
  size?: number
  capture?: CaptureOptions
  /** How often in-flight requests are re-sent (`activity.update`) while someone listens. Default 1 s. */
  updateMs?: number
}

export interface ActivityQuery {
  /** A model or slot name: only its requests. */
  model?: string
  /** A token id, token label or identity: only its requests. */
  caller?: string
  /** Finished requests answered, newest first. Default and most: the ring's size. */
  limit?: number
}

export interface ActivityLog {
  /** The dispatcher's `onStart`. */
  onStart(request: StartedRequest, model: string | undefined, body: Buffer | undefined): void
  /** The dispatcher's `observe` (after metrics and usage). */
  observe(record: DispatchRecord, req: IncomingMessage): void
  list(viewer: ActivityViewer, query?: ActivityQuery): ActivityAnswer
  /** One request by id (in flight or kept), with what capture kept of it; undefined if unseen. */
  find(
    viewer: ActivityViewer,
    id: string,
  ): { entry: ActivityEntry; capture: CapturedExchange | null } | undefined
  readonly capture: Capture
  /** Calls `listener` for every request that starts or ends, until the returned function is called. */
  subscribe(listener: ActivityListener): () => void
  stop(): void
}

export function createActivityLog(options: ActivityLogOptions = {}): ActivityLog {
  const now = options.now ?? Date.now
  const ring = new ActivityRing(options.size ?? ACTIVITY_KEPT)
  // Requests in flight and the model each asked for, at the same index (order does not matter).
  const inflight: StartedRequest[] = []
  const asked: (string | undefined)[] = []
  const readyAt = new Map<string, number>()
  const listeners = new Set<ActivityListener>()
  const capture = createCapture(options.capture)
  const nobody = { token: '', identity: '' }
  const subjectOf = options.subjectOf ?? (() => nobody)

  const off = options.bus?.on('slot.transition', (e) => {
    if (e.to === 'ready') readyAt.set(e.slot, e.at)
  })

  // Read once: `performance.timeOrigin` is a getter that costs more than the rest of a row.
  const origin = performance.timeOrigin
  const arrivedAt = (request: StartedRequest) => origin + request.started

  function callerOf(token: string, identity: string): ActivityCaller | null {
    if (!token && !identity) return null
    return {
      token_id: token || null,
      label: token ? (options.labelOf?.(token) ?? null) : null,
      identity: identity || null,
    }
  }

  /**
   * The load wait of a request that arrived at `at` and reached its upstream `overheadMs` later: the
   * part of that wait until its slot became ready (0 when it was ready already; NaN when unknown).
   */
  function loadWait(slot: string, at: number, overheadMs: number): number {
    if (Number.isNaN(overheadMs)) return Number.NaN
    const ready = readyAt.get(slot)
    return ready !== undefined && ready > at && ready <= at + overheadMs ? ready - at : 0
  }

  /** Where `record`'s request is in `inflight`, or -1. */
  function indexOf(record: DispatchRecord): number {
    for (let i = inflight.length - 1; i >= 0; i--) if (inflight[i]!.record === record) return i
    return -1
  }

  function rowOf(
    record: DispatchRecord,
    req: IncomingMessage,
    request: StartedRequest | undefined,
    model: string | undefined,
  ): RingRow {
    const durationMs = record.seconds * 1000
    const at = request ? arrivedAt(request) : now() - durationMs
    const overheadMs = record.overheadSeconds === undefined ? Number.NaN : record.overheadSeconds * 1000
    const loadMs = loadWait(record.slot, at, overheadMs)
    const queueMs = overheadMs - loadMs
    const ttftMs = record.ttfbSeconds === undefined ? Number.NaN : record.ttfbSeconds * 1000
    const usage = record.usage
    const out = usage?.completionTokens ?? Number.NaN
    // The engine's own generation time when it reports one, else the answer's time after its first byte.
    const generatingMs = usage?.generationMs ?? durationMs - (overheadMs || 0) - (ttftMs || 0)
    const subject = subjectOf(req)
    return {
      id: request?.requestId ?? '',
      at,
      route: record.route,
      slot: record.slot === '-' ? '' : record.slot,
      model: record.model ?? model ?? '',
      token: subject.token,
      identity: subject.identity,
      outcome: record.outcome,
      status: record.status,
      queueMs,
      loadMs,
      ttftMs,
      durationMs,
      tokensIn: usage?.promptTokens ?? Number.NaN,
      tokensOut: out,
      tokensPerS: out > 0 && generatingMs > 0 ? Math.round((out / generatingMs) * 10_000) / 10 : Number.NaN,
    }
  }

  function entryOf(row: RingRow, live: boolean): ActivityEntry {
    const n = (v: number) => (Number.isNaN(v) ? null : Math.round(v * 10) / 10)
    return {
      id: row.id,
      at: Math.round(row.at),
      live,
      caller: callerOf(row.token, row.identity),
      surface: surfaceOf(row.route),
      route: row.route,
      slot: row.slot || null,
      model: row.model || null,
      status: live ? null : row.status,
      outcome: live ? null : (row.outcome as ActivityEntry['outcome']),
      queue_ms: n(row.queueMs),
      load_ms: n(row.loadMs),
      ttft_ms: n(row.ttftMs),
      duration_ms: Math.round(row.durationMs),
      tokens_in: n(row.tokensIn),
      tokens_out: n(row.tokensOut),
      tokens_per_s: n(row.tokensPerS),
      captured: row.id !== '' && capture.has(row.id),
    }
  }

  /** An in-flight request as it stands now (its wait so far, while it has not reached its upstream). */
  function liveEntry(request: StartedRequest, model: string | undefined): ActivityEntry {
    const { record } = request
    const at = arrivedAt(request)
    const elapsed = performance.now() - request.started
    const row = rowOf({ ...record, seconds: elapsed / 1000 }, request.req, request, model)
    if (record.overheadSeconds === undefined) {
      const loading = options.slotLoading?.(row.slot) === true
      row.loadMs = loading ? elapsed : Number.NaN
      row.queueMs = loading ? Number.NaN : elapsed
    }
    row.at = at
    return entryOf(row, true)
  }

  function emit(type: ActivityEventType, entry: ActivityEntry): void {
    for (const listener of listeners) listener(type, entry)
  }

  // While someone listens and requests are in flight, each is re-sent once a second when something a
  // reader sees changed (its model once leased, its wait, its time to first token). No listener, no timer.
  let ticker: ReturnType<typeof setInterval> | undefined
  const lastSent = new Map<StartedRequest, string>()
  function tick(): void {
    if (listeners.size === 0 || inflight.length === 0) {
      clearInterval(ticker)
      ticker = undefined
      lastSent.clear()
      return
    }
    for (const request of lastSent.keys()) if (!inflight.includes(request)) lastSent.delete(request)
    for (let i = 0; i < inflight.length; i++) {
      const request = inflight[i]!
      const entry = liveEntry(request, asked[i])
      const { duration_ms: _, ...seen } = entry
      const text = JSON.stringify(seen)
      if (lastSent.get(request) === text) continue
      lastSent.set(request, text)
      emit('activity.update', entry)
    }
  }
  function watchInflight(): void {
    ticker ??= setInterval(tick, options.updateMs ?? 1000)
    ticker.unref?.()
  }

  const matches = (entry: ActivityEntry, viewer: ActivityViewer, query: ActivityQuery) =>
    viewer(entry.caller) &&
    (!query.model || entry.model === query.model || entry.slot === query.model) &&
    (!query.caller ||
      entry.caller?.token_id === query.caller ||
      entry.caller?.label === query.caller ||
      entry.caller?.identity === query.caller)

  return {
    capture,
    onStart(request, model, body) {
      inflight.push(request)
      asked.push(model)
      if (capture.active()) capture.begin(request.requestId, request.req, request.res, body)
      if (listeners.size > 0) {
        emit('activity.start', liveEntry(request, model))
        watchInflight()
      }
    },
    observe(record, req) {
      const i = indexOf(record)
      const request = i < 0 ? undefined : inflight[i]
      const row = rowOf(record, req, request, i < 0 ? undefined : asked[i])
      if (request) {
        // Swap with the last and drop it: O(1), and the arrays never hold a finished request.
        const last = inflight.length - 1
        inflight[i] = inflight[last]!
        asked[i] = asked[last]
        inflight.pop()
        asked.pop()
        capture.end(request.requestId, record.status)
      }
      ring.push(row)
      if (listeners.size > 0) emit('activity.end', entryOf(row, false))
    },
    list(viewer, query = {}) {
      const limit = Math.min(query.limit ?? ring.size, ring.size)
      const recent: ActivityEntry[] = []
      for (const row of ring.newestFirst()) {
        if (recent.length >= limit) break
        const entry = entryOf(row, false)
        if (matches(entry, viewer, query)) recent.push(entry)
      }
      const live = inflight
        .map((r, i) => liveEntry(r, asked[i]))
        .sort((a, b) => a.at - b.at)
        .filter((e) => matches(e, viewer, query))
      return { inflight: live.reverse(), recent, capture: capture.state() }
    },
    find(viewer, id) {
      const at = inflight.findIndex((r) => r.requestId === id)
      let entry = at < 0 ? undefined : liveEntry(inflight[at]!, asked[at])
      if (!entry) {
        for (const row of ring.newestFirst()) {
          if (row.id !== id) continue
          entry = entryOf(row, false)
          break
        }
      }
      if (!entry || !viewer(entry.caller)) return undefined
      return { entry, capture: capture.get(id) ?? null }
    },
    subscribe(listener) {
      listeners.add(listener)
      if (inflight.length > 0) watchInflight()
      return () => listeners.delete(listener)
    },
    stop() {
      clearInterval(ticker)
      off?.()
      listeners.clear()
    },
  }
}
