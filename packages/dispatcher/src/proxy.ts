/**
 * The streaming hop: one upstream request per client request over a keep-alive agent, the body
 * passed through as bytes, the response streamed back chunk by chunk with backpressure. Client gone →
 * the upstream request is destroyed (llama-server stops generating). Upstream gone mid-stream → an
 * SSE client gets a final `data: {"error":…}` event; any other client sees its connection cut.
 */
import {
  type Agent,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from 'node:http'
import { request as httpsRequest } from 'node:https'
import { SvcError } from '@svc/core'
import { closedWhileIdle, MAX_STALE_RETRIES } from './agents'
import { pipeCapped, uploadTooLarge } from './body'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'
import { sseErrorEvent, writeError } from './respond'
import { type Usage, usageFromTail } from './usage'

export type ForwardBody =
  | { kind: 'buffer'; data: Buffer }
  | {
      kind: 'stream'
      /** Bytes already read (while looking for `model`); sent first. */
      head: Buffer[]
      rest: IncomingMessage
      /** Bytes `rest` may still bring; beyond them the hop ends with 413 `request.too_large`. */
      maxRestBytes: number
      /** The whole body's limit, for the error message. */
      limit: number
    }

export interface ForwardRequest {
  url: URL
  headers: OutgoingHttpHeaders
  body: ForwardBody
  res: ServerResponse
  /** Tells when the client went away (the upstream request is then destroyed). */
  client: { onGone(fn: () => void): () => void }
  /** Until the upstream's response headers arrive. */
  timeoutMs: number
  /** Names the upstream in error messages (slot or hosted upstream name). */
  who: string
  agent: Agent
  requestId: string
  onUpstreamRequest?: () => void
  onFirstByte?: () => void
  /**
   * When the upstream cannot be reached at all (refused, reset before any answer), resolve with
   * outcome `unreachable` and answer the client nothing: the caller tries another replica. Only for
   * a buffered body, which can be sent again.
   */
  retryUnreachable?: boolean
}

export interface ForwardResult {
  status: number
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error' | 'unreachable'
  usage?: Usage
  /** Outcome `unreachable`: the connection error (`ECONNREFUSED`). */
  cause?: string
}

/** Connection errors that mean the request got no answer from the upstream at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH'])

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])
const MAX_ERROR_BODY = 64 * 1024
const TAIL = 4096

export function forward(f: ForwardRequest): Promise<ForwardResult> {
  return new Promise((resolve) => {
    let done = false
    let offGone: () => void = () => {}
    const finish = (result: ForwardResult) => {
      if (done) return
      done = true
      clearTimeout(timer)
      offGone()
      resolve(result)
    }
    const fail = (error: SvcError) =>
      finish({ status: writeError(f.res, error, f.requestId), outcome: 'error' })
    const send = f.url.protocol === 'https:' ? httpsRequest : request
    const open = () =>
      send({
        protocol: f.url.protocol,
        hostname: f.url.hostname,
        port: f.url.port,
        path: f.url.pathname + f.url.search,
        method: 'POST',
        headers: f.headers,
        agent: f.agent,
      })
    let upstream = open()
    let staleRetries = 0
    let answered = false
    const timer = setTimeout(() => {
      upstream.destroy()
      fail(
        new SvcError(
          'upstream.timeout',
          `${f.who} did not answer within ${Math.round(f.timeoutMs / 1000)} s`,
        ),
      )
    }, f.timeoutMs)
    offGone = f.client.onGone(() => {
      upstream.destroy()
      finish({ status: 499, outcome: 'client-gone' })
    })

    const onError = (failed: ClientRequest, error: NodeJS.ErrnoException) => {
      if (done || f.res.headersSent) return
      // A pooled connection the upstream closed while idle (llama-server does after every stream, though
      // it says keep-alive) never delivered the request: send a buffered body again on another one.
      if (
        !answered &&
        f.body.kind === 'buffer' &&
        closedWhileIdle(failed, error) &&
        staleRetries++ < MAX_STALE_RETRIES
      ) {
        upstream = open()
        listen(upstream).end(f.body.data)
        return
      }
      const cause = error.code ?? error.message
      if (f.retryUnreachable && f.body.kind === 'buffer' && UNREACHABLE.has(error.code ?? '')) {
        finish({ status: 0, outcome: 'unreachable', cause })
        return
      }
      fail(new SvcError('upstream.unavailable', `${f.who} is unreachable (${cause})`, { cause: error }))
    }
    const onResponse = (up: IncomingMessage) => {
      answered = true
      clearTimeout(timer)
      f.onFirstByte?.()
      if (done) {
        up.resume()
        return
      }
      const status = up.statusCode ?? 502
      const type = up.headers['content-type']
      if (status >= 400) {
        readSome(up, MAX_ERROR_BODY).then((body) => fail(normaliseUpstreamError(status, body, type, f.who)))
        return
      }
      relay(up, status, f, finish, fail)
    }
    const listen = (req: ClientRequest) =>
      req.on('error', (error: NodeJS.ErrnoException) => onError(req, error)).on('response', onResponse)
    listen(upstream)

    f.onUpstreamRequest?.()
    if (f.body.kind === 'buffer') {
      upstream.end(f.body.data)
    } else {
      const body = f.body
      for (const chunk of body.head) upstream.write(chunk)
      pipeCapped(body.rest, upstream, body.maxRestBytes, () => {
        fail(uploadTooLarge(body.rest, body.limit))
        upstream.destroy()
      })
    }
  })
}

function relay(
  up: IncomingMessage,
  status: number,
  f: ForwardRequest,
  finish: (r: ForwardResult) => void,
  fail: (e: SvcError) => void,
): void {
  const isSse = /text\/event-stream/i.test(up.headers['content-type'] ?? '')
  const isJson = /json/i.test(up.headers['content-type'] ?? '')
  let previous: Buffer | undefined
  let last: Buffer | undefined
  let started = false
  const start = () => {
    started = true
    const headers: OutgoingHttpHeaders = { 'x-request-id': f.requestId }
    for (const [name, value] of Object.entries(up.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value
    }
    if (isSse) {
      headers['cache-control'] = 'no-cache'
      headers['x-accel-buffering'] = 'no'
      delete headers['content-length']
    }
    f.res.writeHead(status, headers)
  }
  let first = true
  let corked = false
  const uncork = () => {
    corked = false
    f.res.uncork()
  }
  up.on('data', (chunk: Buffer) => {
    if (first) {
      first = false
      // FastFlowLM-style "HTTP 200 with {"error":…}": an error in disguise (only JSON, first chunk).
      if (isJson && looksLikeErrorBody(chunk.toString('utf8', 0, Math.min(chunk.length, 64)))) {
        up.removeAllListeners('data')
        up.removeAllListeners('end')
        up.removeAllListeners('close')
        readSome(up, MAX_ERROR_BODY, chunk).then((body) =>
          fail(normaliseUpstreamError(500, body, 'application/json', f.who)),
        )
        return
      }
      start()
    }
    // The last two chunks are kept (by reference) to read `usage` (token counts) at the end.
    if (isJson || isSse) {
      previous = last
      last = chunk
    }
    // Chunks read in the same event-loop turn leave in one write (one syscall), never later than the
    // end of that turn: nothing is held back waiting for more.
    if (!corked) {
      corked = true
      f.res.cork()
      process.nextTick(uncork)
    }
    if (!f.res.write(chunk)) {
      up.pause()
      f.res.once('drain', () => up.resume())
    }
  })
  // A complete response ends on 'end' (as soon as the last byte is in); 'close' without 'end' means
  // the upstream died mid-response.
  let ended = false
  up.on('end', () => {
    ended = true
    if (!started) start()
    const usage = last ? usageFromTail(tailOf(previous, last)) : undefined
    f.res.end()
    finish({ status, outcome: 'ok', ...(usage ? { usage } : {}) })
  })
  up.on('close', () => {
    if (ended) return
    if (!started) {
      fail(new SvcError('upstream.unavailable', `${f.who} closed the connection before answering`))
      return
    }
    if (isSse && !f.res.destroyed) {
      f.res.end(
        sseErrorEvent(new SvcError('upstream.unavailable', `${f.who} stopped in the middle of the stream`)),
      )
    } else {
      f.res.destroy()
    }
    finish({ status: 502, outcome: 'upstream-died' })
  })
}

/** The last `TAIL` bytes of the response as text, from its last two chunks. */
function tailOf(previous: Buffer | undefined, last: Buffer): string {
  if (last.length >= TAIL || !previous) return last.toString('utf8', Math.max(0, last.length - TAIL))
  const need = TAIL - last.length
  return previous.toString('utf8', Math.max(0, previous.length - need)) + last.toString('utf8')
}

/** Reads up to `limit` bytes of a response as text (for error bodies), then drops the rest. */
function readSome(up: IncomingMessage, limit: number, first?: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = first ? [first] : []
    let size = first?.length ?? 0
    up.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c)
      size += c.length
    })
    up.on('close', () => resolve(Buffer.concat(chunks).toString('utf8', 0, Math.min(size, limit))))
    up.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}
