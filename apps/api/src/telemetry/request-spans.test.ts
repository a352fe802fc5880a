import * as api from '@opentelemetry/api'
import { type ReadableSpan, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import type { DispatchRecord } from '@svc/dispatcher'
import { describe, expect, it } from 'vitest'
import { recordSpans } from './request-spans'

/** The spans of one record, by name, as the SDK would export them (times in ms since the epoch). */
function spansOf(
  record: DispatchRecord,
  times: { auth?: [number, number]; slotReadyAt?: number; end: number },
) {
  // The spans as they end (sdk-trace 3.1.1's SimpleSpanProcessor fails to call its exporter).
  const ended: ReadableSpan[] = []
  const collect: SpanProcessor = {
    onStart() {},
    onEnd: (span) => ended.push(span),
    forceFlush: async () => {},
    shutdown: async () => {},
  }
  const provider = new TracerProvider({ spanProcessors: [collect] })
  recordSpans({ api, tracer: provider.getTracer('test') }, api.ROOT_CONTEXT, 'POST', record, {
    auth: times.auth,
    slotReadyAt: times.slotReadyAt,
    end: times.end,
  })
  const ms = (t: api.HrTime) => t[0] * 1000 + t[1] / 1e6 - performance.timeOrigin
  return Object.fromEntries(
    ended.map((s) => [
      s.name,
      { start: ms(s.startTime), end: ms(s.endTime), parent: s.parentSpanContext?.spanId, span: s },
    ]),
  )
}

// A request that arrived at 1000 ms and ended at 1500 ms (performance.now() ms).
const base: DispatchRecord = {
  route: '/v1/chat/completions',
  slot: 'primary',
  status: 200,
  outcome: 'ok',
  seconds: 0.5,
  leaseAskedSeconds: 0.01,
  leaseWaitSeconds: 0.3,
  overheadSeconds: 0.32,
  ttfbSeconds: 0.05,
  model: 'tiny',
  usage: { promptTokens: 7, completionTokens: 3 },
}

describe('recordSpans', () => {
  it('splits the lease wait at the load that ended in it: load, then queue', () => {
    const s = spansOf(base, { auth: [999, 1000], slotReadyAt: 1200, end: 1500 })
    expect(Object.keys(s).sort()).toEqual([
      'POST /v1/chat/completions',
      'auth',
      'load',
      'queue',
      'stream',
      'upstream',
    ])
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(0.01)
    near(s.load!.start, 1010)
    near(s.load!.end, 1200)
    near(s.queue!.start, 1200)
    near(s.queue!.end, 1310)
    near(s.upstream!.start, 1320)
    near(s.upstream!.end, 1370)
    near(s.stream!.end, 1500)
    near(s['POST /v1/chat/completions']!.start, 999)
    const rootId = s['POST /v1/chat/completions']!.span.spanContext().spanId
    for (const name of ['auth', 'load', 'queue', 'upstream', 'stream']) expect(s[name]!.parent).toBe(rootId)
    expect(s['POST /v1/chat/completions']!.span.attributes).toMatchObject({
      'http.response.status_code': 200,
      'gen_ai.response.model': 'tiny',
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
    })
  })

  it('is all queue when the slot was ready before the request asked (no load span, no auth span with auth off)', () => {
    const s = spansOf(base, { slotReadyAt: 500, end: 1500 })
    expect(Object.keys(s).sort()).toEqual(['POST /v1/chat/completions', 'queue', 'stream', 'upstream'])
  })

  it('marks a 5xx as an error, and has no upstream spans when none was reached', () => {
    const failed: DispatchRecord = {
      route: '/v1/embeddings',
      slot: 'embed',
      status: 503,
      outcome: 'error',
      seconds: 0.2,
    }
    const s = spansOf(failed, { end: 1500 })
    expect(Object.keys(s)).toEqual(['POST /v1/embeddings'])
    expect(s['POST /v1/embeddings']!.span.status.code).toBe(api.SpanStatusCode.ERROR)
  })
})
