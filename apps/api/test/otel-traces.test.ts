/**
 * OpenTelemetry traces end to end (docs/operations.md, "Traces"): the real API (a child process) with
 * auth on, in front of a real llama-server slot that loads on request, sending OTLP/HTTP protobuf to a
 * receiver in the test (otlp-receiver.ts). A streamed chat that carries a `traceparent` leaves one
 * server span in the client's trace with children auth, load, queue, upstream and stream, in order and
 * inside it; and an API started without an OTLP endpoint never loads any of the SDK (a resolve hook
 * in front of it, fixtures/otel-module-watch.mjs, reports every SDK module a process resolves).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type ApiProcess, startApi, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from './auth-harness'
import { call, llamaServerAvailable } from './live'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver'

const available = llamaServerAvailable()
const WATCH = `--import=${pathToFileURL(join(import.meta.dirname, 'fixtures/otel-module-watch.mjs')).href}`
const LOADED = /otel-module-loaded (\S+)/g

/** A W3C `traceparent` the client starts its trace with (sampled). */
function traceparent() {
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('')
  const traceId = hex(32)
  const spanId = hex(16)
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` }
}

/** The OTel SDK modules the API process resolved, from the watch hook's lines in its output. */
const sdkModules = (api: ApiProcess) => [...api.output().matchAll(LOADED)].map((m) => m[1])

/** The children of `root` by name (each name once). */
function childrenOf(trace: ReceivedSpan[], root: ReceivedSpan): Record<string, ReceivedSpan> {
  return Object.fromEntries(trace.filter((s) => s.parentSpanId === root.spanId).map((s) => [s.name, s]))
}

describe.skipIf(!available)('OpenTelemetry traces of a request to a real llama-server slot', () => {
  let dir: string
  let api: ApiProcess
  let receiver: OtlpReceiver
  let token: string
  const refs = { a: 'tiny-a', b: 'tiny-b' }
  const admin = () => ({ authorization: `Bearer ${token}` })

  async function streamedChat(model: string, header: string) {
    const res = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...admin(), 'content-type': 'application/json', traceparent: header },
      body: JSON.stringify({
        model,
        stream: true,
        max_tokens: 4,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    })
    const text = await res.text()
    expect(res.status, text).toBe(200)
    expect(text).toContain('data: [DONE]')
  }

  async function load(path: string) {
    const r = await call(api, '/api/slots/primary/load?wait=true', {
      method: 'POST',
      json: { model: path },
      headers: admin(),
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-otel-'))
    receiver = await startOtlpReceiver()
    const a = await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat' })
    await copyFile(a.path, join(dir, 'tiny-b.gguf'))
    const configDir = join(dir, 'config')
    await writeSvcConfig(configDir, {
      slots: {
        primary:
          'backend = "cpu"\nruntime = "process"\nrestart = "no"\nload_on_request = true\nmax_loaded = 1\n' +
          'args = ["-c", "256", "-np", "1", "--threads", "1"]\n',
      },
    })
    token = (await mintToken(configDir, { label: 'otel', scope: 'admin' })).token
    api = await startApi({
      configDir,
      stateDir: join(dir, 'state'),
      env: {
        SVC_AUTH_ENABLED: '1',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'svc-otel-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        NODE_OPTIONS: WATCH,
      },
    })
    // Loading each file once registers its ref; tiny-a stays loaded, so tiny-b loads on request.
    await load(join(dir, 'tiny-b.gguf'))
    await load(a.path)
  }, 120_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await receiver?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('sends a server span in the client trace with auth, load, queue, upstream and stream inside it', async () => {
    const tp = traceparent()
    await streamedChat(refs.b, tp.header)
    const trace = await receiver.waitFor(tp.traceId, (t) => t.length >= 6)
    const roots = trace.filter((s) => s.parentSpanId === tp.spanId)
    expect(roots.map((s) => s.name)).toEqual(['POST /v1/chat/completions'])
    const root = roots[0]!
    expect(root.service).toBe('svc-otel-test')
    expect(root.kind).toBe(2) // SPAN_KIND_SERVER
    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'svc.slot': 'primary',
      'gen_ai.response.model': refs.b,
    })
    const c = childrenOf(trace, root)
    expect(Object.keys(c).sort()).toEqual(['auth', 'load', 'queue', 'stream', 'upstream'])
    expect(trace.every((s) => s.traceId === tp.traceId)).toBe(true)
    expect(c.upstream!.kind).toBe(3) // SPAN_KIND_CLIENT
    // Every child inside the root; the phases one after another.
    for (const s of Object.values(c)) {
      expect(s.start).toBeGreaterThanOrEqual(root.start)
      expect(s.end).toBeLessThanOrEqual(root.end)
      expect(s.end).toBeGreaterThanOrEqual(s.start)
    }
    const order = [c.auth!, c.load!, c.queue!, c.upstream!, c.stream!]
    for (let i = 1; i < order.length; i++) expect(order[i]!.start).toBeGreaterThanOrEqual(order[i - 1]!.end)
    // A real llama-server load (the swap from tiny-a) takes far longer than a millisecond.
    expect(Number(c.load!.end - c.load!.start) / 1e6).toBeGreaterThan(20)
    expect(c.stream!.start).toBe(c.upstream!.end)
    expect(c.stream!.end).toBe(root.end)
    // Exported as the spec's default for OTLP/HTTP: protobuf to <endpoint>/v1/traces.
    expect(receiver.requests.every((r) => r.path === '/v1/traces')).toBe(true)
    expect(receiver.requests[0]?.contentType).toBe('application/x-protobuf')
    expect(sdkModules(api)).toContain('@opentelemetry/sdk-trace')
  }, 90_000)

  it('has no load span when the model is already loaded', async () => {
    const tp = traceparent()
    await streamedChat(refs.b, tp.header)
    const trace = await receiver.waitFor(tp.traceId, (t) => t.length >= 5)
    const root = trace.find((s) => s.parentSpanId === tp.spanId)!
    expect(Object.keys(childrenOf(trace, root)).sort()).toEqual(['auth', 'queue', 'stream', 'upstream'])
  }, 60_000)

  it('starts a trace of its own for a request without traceparent', async () => {
    const before = new Set(receiver.spans.map((s) => s.traceId))
    await streamedChat(refs.b, '')
    const deadline = Date.now() + 10_000
    let root: ReceivedSpan | undefined
    while (!root && Date.now() < deadline) {
      root = receiver.spans.find((s) => !before.has(s.traceId) && s.parentSpanId === '')
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(root?.name).toBe('POST /v1/chat/completions')
  }, 30_000)
})

describe('the OpenTelemetry SDK is loaded only with an OTLP endpoint', () => {
  const refused = (api: ApiProcess, traceHeader = '') =>
    call(api, '/v1/chat/completions', {
      method: 'POST',
      json: { model: 'primary', messages: [{ role: 'user', content: 'hi' }] },
      headers: { traceparent: traceHeader },
    })

  it('with one, loads it, traces even a refused request and sends the last spans when it stops', async () => {
    await using receiver = await startOtlpReceiver()
    // Batches every 10 minutes: what arrives, arrives because the graceful stop flushed it.
    await using api = await startApi({
      env: {
        NODE_OPTIONS: WATCH,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
    })
    // A client that does not sample its trace: svc follows its flag (the default parent-based sampler).
    const unsampled = traceparent()
    expect((await refused(api, unsampled.header.replace(/-01$/, '-00'))).status).toBe(409)
    const tp = traceparent()
    expect((await refused(api, tp.header)).status).toBe(409) // no model loaded
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.spans).toEqual([])
    expect(await api.stop()).toBe(0)
    const trace = await receiver.waitFor(tp.traceId, (t) => t.some((s) => s.parentSpanId === tp.spanId), 1000)
    const root = trace.find((s) => s.parentSpanId === tp.spanId)
    expect(root).toMatchObject({ name: 'POST /v1/chat/completions', parentSpanId: tp.spanId, service: 'svc' })
    expect(root!.attributes['http.response.status_code']).toBe(409)
    expect(receiver.spans.filter((s) => s.traceId === unsampled.traceId)).toEqual([])
    expect(sdkModules(api)).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-proto']),
    )
  }, 60_000)

  it('without one, loads no module of it, at start or for a request', async () => {
    await using api = await startApi({ env: { NODE_OPTIONS: WATCH } })
    expect((await refused(api)).status).toBe(409)
    expect(api.output()).toContain('svc listening')
    expect(api.output()).not.toContain('OpenTelemetry traces on')
    expect(sdkModules(api)).toEqual([])
  }, 60_000)
})
