/**
 * The streaming hop: one upstream request per client request over a keep-alive agent, the body
 * passed through as bytes, the response streamed back chunk by chunk with backpressure. Client gone →
 * the upstream request is destroyed (llama-server stops generating). Upstream gone mid-stream → an
 * SSE client gets a final `data: {"error":…}` event; any other client sees its connection cut.
 */
import { type IncomingMessage, type OutgoingHttpHeaders, request } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { SvcError } from '@svc/core'
import { uploadTooLarge } from './body'
import type { ForwardRequest, ForwardResult, Settle } from './forward-types'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'
import { pipeCapped } from './pipe-capped'
import { relayNormalised } from './relay-normalised'
import { relayed } from './relayed-headers'
import { readSome, tailOf } from './reply-text'
import { sseErrorEvent, writeError } from './respond'
import { withAddedHeaders } from './response-headers'
import { usageFromTail } from './usage'

export type { ForwardBody, ForwardRequest, ForwardResult, NormaliseBody, Settle } from './forward-types'

/** What a kept-alive connection that the upstream had already closed fails with when reused. */
const STALE = new Set(['ECONNRESET', 'EPIPE'])
/** Connection errors that mean the request got no answer from the upstream at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH'])

const MAX_ERROR_BODY = 64 * 1024

export function forward(hop: ForwardRequest): Promise<ForwardResult> {
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
      finish({ status: writeError(hop.res, error, hop.requestId), outcome: 'error' })
    const send = hop.url.protocol === 'https:' ? httpsRequest : request
    const upstream = send({
      protocol: hop.url.protocol,
      hostname: hop.url.hostname,
      port: hop.url.port,
      path: hop.url.pathname + hop.url.search,
      method: 'POST',
      headers: hop.headers,
      agent: hop.fresh ? false : hop.agent,
    })
    const timer = setTimeout(() => {
      upstream.destroy()
      fail(
        new SvcError(
          'upstream.timeout',
          `${hop.who} did not answer within ${Math.round(hop.timeoutMs / 1000)} s`,
        ),
      )
    }, hop.timeoutMs)
    offGone = hop.client.onGone(() => {
      upstream.destroy()
      finish({ status: 499, outcome: 'client-gone' })
    })

    const onError = (error: NodeJS.ErrnoException) => {
      if (done || hop.res.headersSent) return
      const cause = error.code ?? error.message
      // The upstream closed this kept-alive connection (idle timeout, request cap) as it was reused:
      // nothing reached it. A buffered body goes once more on a new connection (Node's advice for
      // `reusedSocket`); a streamed one cannot be replayed.
      if (upstream.reusedSocket && !hop.fresh && hop.body.kind === 'buffer' && STALE.has(error.code ?? '')) {
        done = true
        clearTimeout(timer)
        offGone()
        resolve(forward({ ...hop, fresh: true }))
        return
      }
      if (hop.retryUnreachable && hop.body.kind === 'buffer' && UNREACHABLE.has(error.code ?? '')) {
        finish({ status: 0, outcome: 'unreachable', cause })
        return
      }
      fail(new SvcError('upstream.unavailable', `${hop.who} is unreachable (${cause})`, { cause: error }))
    }
    const onResponse = (up: IncomingMessage) => {
      clearTimeout(timer)
      hop.onFirstByte?.()
      if (done) {
        up.resume()
        return
      }
      const status = up.statusCode ?? 502
      const type = up.headers['content-type']
      if (hop.normaliseBody && !/text\/event-stream/i.test(type ?? '')) {
        relayNormalised(up, status, hop, { finish, fail })
        return
      }
      if (status >= 400) {
        readSome(up, MAX_ERROR_BODY).then((body) => fail(normaliseUpstreamError(status, body, type, hop.who)))
        return
      }
      relay(up, status, hop, { finish, fail })
    }
    upstream.on('error', onError)
    upstream.on('response', onResponse)

    hop.onUpstreamRequest?.()
    if (hop.body.kind === 'buffer') {
      upstream.end(hop.body.data)
    } else {
      const body = hop.body
      for (const chunk of body.head) upstream.write(chunk)
      pipeCapped(body.rest, upstream, body.maxRestBytes, () => {
        fail(uploadTooLarge(body.rest, body.limit))
        upstream.destroy()
      })
    }
  })
}

function relay(up: IncomingMessage, status: number, hop: ForwardRequest, settle: Settle): void {
  const { finish, fail } = settle
  const isSse = /text\/event-stream/i.test(up.headers['content-type'] ?? '')
  const isJson = /json/i.test(up.headers['content-type'] ?? '')
  let previous: Buffer | undefined
  let last: Buffer | undefined
  let started = false
  const start = () => {
    started = true
    const headers: OutgoingHttpHeaders = { 'x-request-id': hop.requestId }
    for (const [name, value] of Object.entries(up.headers)) {
      if (value !== undefined && relayed(name)) headers[name] = value
    }
    if (isSse) {
      headers['cache-control'] = 'no-cache'
      headers['x-accel-buffering'] = 'no'
      delete headers['content-length']
    }
    // Headers already out: a stream svc opened while the request waited for a load.
    if (!hop.res.headersSent) hop.res.writeHead(status, withAddedHeaders(hop.res, headers))
  }
  let first = true
  let corked = false
  const uncork = () => {
    corked = false
    hop.res.uncork()
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
          fail(normaliseUpstreamError(500, body, 'application/json', hop.who)),
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
      hop.res.cork()
      process.nextTick(uncork)
    }
    if (!hop.res.write(chunk)) {
      up.pause()
      hop.res.once('drain', () => up.resume())
    }
  })
  // A complete response ends on 'end' (as soon as the last byte is in); 'close' without 'end' means
  // the upstream died mid-response.
  let ended = false
  up.on('end', () => {
    ended = true
    if (!started) start()
    const usage = last ? usageFromTail(tailOf(previous, last)) : undefined
    hop.res.end()
    finish({ status, outcome: 'ok', ...(usage ? { usage } : {}) })
  })
  up.on('close', () => {
    if (ended) return
    if (!started) {
      fail(new SvcError('upstream.unavailable', `${hop.who} closed the connection before answering`))
      return
    }
    if (isSse && !hop.res.destroyed) {
      hop.res.end(
        sseErrorEvent(
          hop.res,
          new SvcError('upstream.unavailable', `${hop.who} stopped in the middle of the stream`),
        ),
      )
    } else {
      hop.res.destroy()
    }
    finish({ status: 502, outcome: 'upstream-died' })
  })
}
