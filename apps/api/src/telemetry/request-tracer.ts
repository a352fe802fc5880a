/**
 * What the API wires when traces are on (load-tracing.ts makes it; absent otherwise, so a request
 * without traces pays nothing): the auth guard timed, each dispatch record turned into spans
 * (request-spans.ts), the client's `traceparent` continued (W3C trace context), and when each slot
 * last became ready (the end of a load a request waited for).
 *
 * svc does not send its own `traceparent` to the engine: llama-server and the other engines record
 * no traces, and the header would be made for every request. A client's header goes on as it came.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type * as Api from '@opentelemetry/api'
import type { EventBus, SvcEvents } from '@svc/core'
import type { DispatchRecord } from '@svc/dispatcher'
import { recordSpans, type SpanTools } from './request-spans'

/** The API's auth guard, as http-handler.ts calls it. */
export type Guard = (
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
) => Promise<boolean> | boolean

export interface RequestTracer {
  /** `guard`, with its start and end noted for the request's `auth` span. */
  timeGuard(guard: Guard): Guard
  /** The dispatcher's `observe`: the request's spans, handed to the batch exporter. */
  observe(record: DispatchRecord, req: IncomingMessage): void
  /** Stops listening and flushes what is not exported yet (the API's graceful stop). */
  close(): Promise<void>
}

export interface RequestTracerParts extends SpanTools {
  /** Reads the client's `traceparent`/`tracestate` into a parent context. */
  propagator: Api.TextMapPropagator
  bus: EventBus<SvcEvents>
  /** Flushes and stops the SDK (the provider's shutdown). */
  shutdown(): Promise<void>
}

export function createRequestTracer(parts: RequestTracerParts): RequestTracer {
  const { api, propagator } = parts
  const authTimes = new WeakMap<IncomingMessage, readonly [number, number]>()
  // Spans are built from performance.now() ms: the listener runs as the bus emits, so it reads the clock
  // itself rather than turn the event's epoch time (which the wall clock's adjustments move) into it.
  const readyAt = new Map<string, number>()
  const unsubscribe = parts.bus.on('slot.transition', (e) => {
    if (e.to === 'ready') readyAt.set(e.slot, performance.now())
  })
  return {
    timeGuard(guard) {
      return function timedGuard(req, res, requestId) {
        const started = performance.now()
        const passed = guard(req, res, requestId)
        if (typeof passed === 'boolean') {
          authTimes.set(req, [started, performance.now()])
          return passed
        }
        return passed.then((ok) => {
          authTimes.set(req, [started, performance.now()])
          return ok
        })
      }
    },
    observe(record, req) {
      const end = performance.now()
      const parent = propagator.extract(api.ROOT_CONTEXT, req.headers, api.defaultTextMapGetter)
      recordSpans(parts, parent, req.method ?? 'POST', record, {
        auth: authTimes.get(req),
        slotReadyAt: readyAt.get(record.slot),
        end,
      })
    },
    async close() {
      unsubscribe()
      await parts.shutdown()
    },
  }
}
