/**
 * One request's spans, made when it is done from what the dispatcher measured (its `DispatchRecord`:
 * seconds since arrival, no clock reads of its own) and the auth guard's times. A root span per
 * request (`POST /v1/chat/completions`, HTTP server conventions) with one child per phase:
 *
 * | child | from → to |
 * |---|---|
 * | `auth` | the guard ran (token check, quota): only with auth on |
 * | `load` | the lease was asked for → the slot became ready, when a load ran during the wait |
 * | `queue` | the lease was asked for (or the load ended) → the lease was held |
 * | `upstream` | the request went to the engine → its first response byte (time to first byte) |
 * | `stream` | first byte → the answer was finished |
 *
 * Times are `performance.now()` milliseconds, turned into epoch milliseconds for the SDK.
 */
import type * as Api from '@opentelemetry/api'
import type { DispatchRecord } from '@svc/dispatcher'

/** What the spans are made with: the OTel API module, a tracer and the request's parent context. */
export interface SpanTools {
  api: typeof Api
  tracer: Api.Tracer
}

/** When one request's phases happened (`performance.now()` ms); undefined: the phase did not run. */
export interface RequestTimes {
  /** The auth guard: started, done. */
  auth: readonly [number, number] | undefined
  /** When the request's slot last became ready (a load's end), if it ever did. */
  slotReadyAt: number | undefined
  /** When `observe` got the record: the end of the request. */
  end: number
}

export function recordSpans(
  tools: SpanTools,
  parent: Api.Context,
  method: string,
  record: DispatchRecord,
  times: RequestTimes,
): void {
  const { api, tracer } = tools
  const { SpanKind } = api
  const origin = performance.timeOrigin
  const at = (t: number) => origin + t
  const { end } = times
  const arrival = end - record.seconds * 1000
  const start = times.auth ? Math.min(times.auth[0], arrival) : arrival
  const root = tracer.startSpan(
    `${method} ${record.route}`,
    { kind: SpanKind.SERVER, startTime: at(start), attributes: rootAttributes(method, record) },
    parent,
  )
  if (record.status >= 500) root.setStatus({ code: api.SpanStatusCode.ERROR, message: record.outcome })
  const inside = api.trace.setSpan(parent, root)
  const child = (name: string, from: number, to: number, kind: Api.SpanKind = SpanKind.INTERNAL) =>
    tracer.startSpan(name, { kind, startTime: at(from) }, inside).end(at(Math.max(from, to)))
  if (times.auth) child('auth', times.auth[0], times.auth[1])
  if (record.leaseAskedSeconds !== undefined) {
    const asked = arrival + record.leaseAskedSeconds * 1000
    const held = record.leaseWaitSeconds !== undefined ? asked + record.leaseWaitSeconds * 1000 : end
    const ready = times.slotReadyAt
    const loaded = ready !== undefined && ready > asked && ready <= held
    if (loaded) child('load', asked, ready)
    child('queue', loaded ? ready : asked, held)
  }
  if (record.overheadSeconds !== undefined) {
    const sent = arrival + record.overheadSeconds * 1000
    const firstByte = record.ttfbSeconds !== undefined ? sent + record.ttfbSeconds * 1000 : end
    child('upstream', sent, firstByte, SpanKind.CLIENT)
    if (record.ttfbSeconds !== undefined) child('stream', firstByte, end)
  }
  root.end(at(end))
}

function rootAttributes(method: string, record: DispatchRecord): Api.Attributes {
  const attributes: Api.Attributes = {
    'http.request.method': method,
    'http.route': record.route,
    'url.path': record.route,
    'http.response.status_code': record.status,
    'svc.slot': record.slot,
    'svc.outcome': record.outcome,
  }
  if (record.model !== undefined) attributes['gen_ai.response.model'] = record.model
  if (record.usage) {
    attributes['gen_ai.usage.input_tokens'] = record.usage.promptTokens
    attributes['gen_ai.usage.output_tokens'] = record.usage.completionTokens
  }
  return attributes
}
