/**
 * The conformance runner: a table of rows, each one spec rule (quoted or cited), one request and
 * what a client of that spec may rely on in the answer. A table runs once per target (`it.each`):
 * svc with the real llama-server behind it, and svc with the wrong-answering stand-in
 * (`startWrongEngine`, @svc/testing) behind it, so svc's corrections are tested even when a future
 * engine fixes itself. Targets come from `conformanceTargets` (targets.ts).
 *
 * A row's request names no model: the runner puts the target's in (`body.model`, unless the row set
 * one). `stream: true` sets `body.stream` (unless set) and reads the answer as SSE events (or NDJSON
 * lines when the answer says `application/x-ndjson`, as Ollama streams do).
 */
import { readSse } from '@svc/core'
import { it } from 'vitest'

/** Which engine is behind svc: the real llama-server, or the stand-in that answers wrongly. */
export type TargetKind = 'llama-server' | 'wrong-engine'

/** A request body the stand-in received (path and parsed JSON body), in arrival order. */
export interface ReceivedRequest {
  path: string
  body: unknown
  headers: Record<string, string | string[] | undefined>
}

export interface ConformanceTarget {
  kind: TargetKind
  /** svc's base URL (`http://127.0.0.1:<port>`, no trailing slash). */
  url: string
  /** The `model` rows are sent with (a slot name). */
  model: string
  /** The stand-in's record of the bodies it received; undefined for the real engine. */
  received?: () => readonly ReceivedRequest[]
}

export interface ConformanceRequest {
  path: string
  /** Default POST (GET when there is no body). */
  method?: 'GET' | 'POST' | 'DELETE'
  /** JSON body; `model` is filled in with the target's when absent. */
  body?: Record<string, unknown>
  headers?: Record<string, string>
  /** Ask for a stream (`body.stream = true` unless the body says otherwise) and read it as events. */
  stream?: boolean
}

/** One SSE event (`data` parsed as JSON where it parses, else the text) or one NDJSON line. */
export interface ConformanceEvent {
  event: string
  // biome-ignore lint/suspicious/noExplicitAny: rows read whatever the spec says is there.
  data: any
}

export interface ConformanceAnswer {
  status: number
  headers: Headers
  /** The JSON body (non-streamed answers), or undefined when it did not parse. */
  // biome-ignore lint/suspicious/noExplicitAny: rows read whatever the spec says is there.
  body: any
  /** The body as text (streamed answers: the whole stream). */
  text: string
  /** Streamed answers: the SSE events (or NDJSON lines, event `line`) in order; else empty. */
  events: ConformanceEvent[]
}

export interface ConformanceRow {
  /** The spec rule this row checks, quoted or cited (it names the test). */
  rule: string
  /** The request, or a function making it (for one that depends on a first answer, e.g. a stop string). */
  request:
    | ConformanceRequest
    | ((target: ConformanceTarget) => ConformanceRequest | Promise<ConformanceRequest>)
  /** Throws (with `expect`) when the answer breaks the rule. */
  expect(answer: ConformanceAnswer, target: ConformanceTarget): void | Promise<void>
  /** Run against this kind of target only (a row about the stand-in's record, say). */
  only?: TargetKind
  /** Per-row timeout (ms); default 60 s. */
  timeoutMs?: number
}

/** Registers one `it` per row of `table` that applies to the target `target()` returns (read at run time). */
export function runConformance(
  table: readonly ConformanceRow[],
  kind: TargetKind,
  target: () => ConformanceTarget,
): void {
  const rows = table.filter((row) => row.only === undefined || row.only === kind)
  it.each(rows.map((row) => [row.rule, row] as const))(
    '%s',
    async (_rule, row) => {
      const t = target()
      const request = typeof row.request === 'function' ? await row.request(t) : row.request
      const answer = await sendConformance(t, request)
      try {
        await row.expect(answer, t)
      } catch (error) {
        if (error instanceof Error) {
          error.message += `\n  request: ${JSON.stringify(request)}\n  answer (${answer.status}): ${answer.text.slice(0, 3000)}`
        }
        throw error
      }
    },
    Math.max(...rows.map((row) => row.timeoutMs ?? 60_000), 60_000),
  )
}

/** Sends one conformance request to svc and reads the whole answer (JSON, SSE or NDJSON). */
export async function sendConformance(
  target: Pick<ConformanceTarget, 'url' | 'model'>,
  request: ConformanceRequest,
): Promise<ConformanceAnswer> {
  const body =
    request.body === undefined
      ? undefined
      : {
          ...(request.body.model === undefined ? { model: target.model } : {}),
          ...(request.stream && request.body.stream === undefined ? { stream: true } : {}),
          ...request.body,
        }
  const res = await fetch(target.url + request.path, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const type = res.headers.get('content-type') ?? ''
  const events: ConformanceEvent[] = []
  let text = ''
  if (/text\/event-stream/i.test(type) && res.body) {
    for await (const { event, data } of readSse(res.body as ReadableStream<Uint8Array>)) {
      text += `event: ${event}\ndata: ${data}\n\n`
      events.push({ event, data: parsed(data) ?? data })
    }
  } else {
    text = await res.text()
    if (/ndjson/i.test(type)) {
      for (const line of text.split('\n'))
        if (line.trim()) events.push({ event: 'line', data: parsed(line) ?? line })
    }
  }
  return {
    status: res.status,
    headers: res.headers,
    body: events.length ? undefined : parsed(text),
    text,
    events,
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The events of a stream whose `data.type` (or SSE event name) is `type`. */
export function eventsOf(answer: ConformanceAnswer, type: string): ConformanceEvent[] {
  return answer.events.filter((e) => e.event === type || e.data?.type === type)
}
