/**
 * The streaming hop: one upstream request per client request over a keep-alive agent, the body
 * passed through as bytes, the response streamed back chunk by chunk with backpressure. Client gone →
 * the upstream request is destroyed (llama-server stops generating). Upstream gone mid-stream → an
 * SSE client gets a final `data: {"error":…}` event; any other client sees its connection cut.
 */
import {
  type Agent,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from 'node:http'
import { request as httpsRequest } from 'node:https'
import { type ProviderRoute, SvcError } from '@svc/core'
import { uploadTooLarge } from './body'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'
import { pipeCapped } from './pipe-capped'
import { relayNormalised } from './relay-normalised'
import { relayed } from './relayed-headers'
import { readSome, tailOf } from './reply-text'
import { sseErrorEvent, writeError } from './respond'
import { withAddedHeaders } from './response-headers'
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
      /** Bytes svc put in front of the client's body (its Content-Length grows by them). */
      added?: number
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
   * The provider's own reading of a whole (non-SSE) reply, for upstreams whose errors hide in
   * successes (FastFlowLM: HTTP 200 with `{"error": …}` or `null`): the error to send instead, or
   * undefined for a real success. When set, such replies are read whole before anything is sent.
   */
  normaliseBody?: NormaliseBody
  /**
   * When the upstream cannot be reached at all (refused, reset before any answer), resolve with
   * outcome `unreachable` and answer the client nothing: the caller tries another replica. Only for
   * a buffered body, which can be sent again.
   */
  retryUnreachable?: boolean
  /** A new connection instead of the agent's kept-alive ones (the resend after a stale one). */
  fresh?: boolean
}

/** See `ForwardRequest.normaliseBody`; `body` is the parsed JSON (`null` for an empty body). */
export type NormaliseBody = NonNullable<ProviderRoute['normaliseBody']>

/** How a relay ends the hop: with the result, or with an error answered to the client. */
export interface Settle {
  finish(result: ForwardResult): void
  fail(error: SvcError): void
}

export interface ForwardResult {
  status: number
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error' | 'unreachable'
  usage?: Usage
  /** Outcome `unreachable`: the connection error (`ECONNREFUSED`). */
  cause?: string
}

/** What a kept-alive connection that the upstream had already closed fails with when reused. */
const STALE = new Set(['ECONNRESET', 'EPIPE'])
/** Connection errors that mean the request got no answer from the upstream at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH'])

const MAX_ERROR_BODY = 64 * 1024

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
    const upstream = send({
      protocol: f.url.protocol,
      hostname: f.url.hostname,
      port: f.url.port,
      path: f.url.pathname + f.url.search,
      method: 'POST',
      headers: f.headers,
      agent: f.fresh ? false : f.agent,
    })
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

    const onError = (error: NodeJS.ErrnoException) => {
      if (done || f.res.headersSent) return
      const cause = error.code ?? error.message
      // The upstream closed this kept-alive connection (idle timeout, request cap) as it was reused:
      // nothing reached it. A buffered body goes once more on a new connection (Node's advice for
      // `reusedSocket`); a streamed one cannot be replayed.
      if (upstream.reusedSocket && !f.fresh && f.body.kind === 'buffer' && STALE.has(error.code ?? '')) {
        done = true
        clearTimeout(timer)
        offGone()
        resolve(forward({ ...f, fresh: true }))
        return
      }
      if (f.retryUnreachable && f.body.kind === 'buffer' && UNREACHABLE.has(error.code ?? '')) {
        finish({ status: 0, outcome: 'unreachable', cause })
        return
      }
      fail(new SvcError('upstream.unavailable', `${f.who} is unreachable (${cause})`, { cause: error }))
    }
    const onResponse = (up: IncomingMessage) => {
      clearTimeout(timer)
      f.onFirstByte?.()
      if (done) {
        up.resume()
        return
      }
      const status = up.statusCode ?? 502
      const type = up.headers['content-type']
      if (f.normaliseBody && !/text\/event-stream/i.test(type ?? '')) {
        relayNormalised(up, status, f, { finish, fail })
        return
      }
      if (status >= 400) {
        readSome(up, MAX_ERROR_BODY).then((body) => fail(normaliseUpstreamError(status, body, type, f.who)))
        return
      }
      relay(up, status, f, { finish, fail })
    }
    upstream.on('error', onError)
    upstream.on('response', onResponse)

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

function relay(up: IncomingMessage, status: number, f: ForwardRequest, settle: Settle): void {
  const { finish, fail } = settle
  const isSse = /text\/event-stream/i.test(up.headers['content-type'] ?? '')
  const isJson = /json/i.test(up.headers['content-type'] ?? '')
  let previous: Buffer | undefined
  let last: Buffer | undefined
  let started = false
  const start = () => {
    started = true
    const headers: OutgoingHttpHeaders = { 'x-request-id': f.requestId }
    for (const [name, value] of Object.entries(up.headers)) {
      if (value !== undefined && relayed(name)) headers[name] = value
    }
    if (isSse) {
      headers['cache-control'] = 'no-cache'
      headers['x-accel-buffering'] = 'no'
      delete headers['content-length']
    }
    // Headers already out: a stream svc opened while the request waited for a load.
    if (!f.res.headersSent) f.res.writeHead(status, withAddedHeaders(f.res, headers))
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
        sseErrorEvent(
          f.res,
          new SvcError('upstream.unavailable', `${f.who} stopped in the middle of the stream`),
        ),
      )
    } else {
      f.res.destroy()
    }
    finish({ status: 502, outcome: 'upstream-died' })
  })
}
