/**
 * An OTLP/HTTP trace receiver for tests (the OpenTelemetry Collector cannot run here): a plain
 * node:http server on 127.0.0.1, port 0, that takes `POST /v1/traces` with a protobuf body, as the
 * collector's OTLP/HTTP receiver does, and decodes it with the OTLP protobuf definitions as the
 * OpenTelemetry project generates them (`@opentelemetry/otlp-transformer` 0.215.0, the last release
 * that ships its generated protobufjs root; the SDK's own exporter no longer needs one).
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'

interface ProtoType {
  decode(bytes: Uint8Array): unknown
  encode(message: object): { finish(): Uint8Array }
}
// CommonJS, generated from opentelemetry-proto (the package's `main` build).
const generated = createRequire(import.meta.url)(
  '@opentelemetry/otlp-transformer/build/src/generated/root.js',
)
const proto = (
  generated as {
    opentelemetry: { proto: Record<string, Record<string, Record<string, Record<string, ProtoType>>>> }
  }
).opentelemetry.proto
const ExportRequest = proto.collector!.trace!.v1!.ExportTraceServiceRequest!
const ExportResponse = proto.collector!.trace!.v1!.ExportTraceServiceResponse!

/** One span as it arrived: ids in hex, times in ns (bigint), attributes as plain values. */
export interface ReceivedSpan {
  service: string | undefined
  traceId: string
  spanId: string
  /** '' for a span without a parent. */
  parentSpanId: string
  name: string
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number
  start: bigint
  end: bigint
  attributes: Record<string, string | number | boolean>
}

export interface OtlpReceiver extends AsyncDisposable {
  /** The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it (the exporter appends `/v1/traces`). */
  url: string
  spans: ReceivedSpan[]
  /** Paths and content types of every request it got (what the exporter sent where). */
  requests: { path: string; contentType: string | undefined }[]
  /** Resolves with the trace's spans once `ready(spans)` holds; rejects after `timeoutMs`. */
  waitFor(
    traceId: string,
    ready: (spans: ReceivedSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const requests: OtlpReceiver['requests'] = []
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] })
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end()
      return
    }
    spans.push(...flatten(ExportRequest.decode(Buffer.concat(chunks))))
    res.writeHead(200, { 'content-type': 'application/x-protobuf' })
    res.end(Buffer.from(ExportResponse.encode({}).finish()))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitFor(traceId, ready, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const trace = spans.filter((s) => s.traceId === traceId)
        if (ready(trace)) return trace
        if (Date.now() > deadline)
          throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(trace.map((s) => s.name))}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections()
      server.close()
    },
  }
}

interface Decoded {
  resourceSpans: {
    resource?: { attributes: KeyValue[] }
    scopeSpans: {
      spans: {
        traceId: Uint8Array
        spanId: Uint8Array
        parentSpanId?: Uint8Array
        name: string
        kind: number
        startTimeUnixNano: Int64
        endTimeUnixNano: Int64
        attributes: KeyValue[]
      }[]
    }[]
  }[]
}
interface KeyValue {
  key: string
  value: {
    value?: string
    stringValue?: string
    intValue?: Int64
    doubleValue?: number
    boolValue?: boolean
  }
}

function flatten(message: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = []
  for (const rs of (message as Decoded).resourceSpans) {
    const service = values(rs.resource?.attributes ?? [])['service.name']
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        out.push({
          service: typeof service === 'string' ? service : undefined,
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: s.parentSpanId ? hex(s.parentSpanId) : '',
          name: s.name,
          kind: s.kind,
          start: int64(s.startTimeUnixNano),
          end: int64(s.endTimeUnixNano),
          attributes: values(s.attributes),
        })
      }
    }
  }
  return out
}

function values(attributes: KeyValue[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  // `value.value` names the field of AnyValue's oneof that is set (protobufjs's virtual oneof field).
  for (const { key, value } of attributes) {
    if (value.value === 'stringValue') out[key] = value.stringValue!
    else if (value.value === 'intValue') out[key] = Number(int64(value.intValue!))
    else if (value.value === 'doubleValue') out[key] = value.doubleValue!
    else if (value.value === 'boolValue') out[key] = value.boolValue!
  }
  return out
}

/** protobufjs's 64-bit integer: a number, or `{ low, high }` (two 32-bit halves) without the long package. */
type Int64 = number | { low: number; high: number }

function int64(v: Int64): bigint {
  if (typeof v === 'number') return BigInt(v)
  return (BigInt(v.high >>> 0) << 32n) + BigInt(v.low >>> 0)
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
