/**
 * The relay for providers whose errors hide in successes (`ForwardRequest.normaliseBody`, FastFlowLM):
 * the reply is read whole (bounded), judged by the provider, and either sent as it came or replaced
 * by the error it stands for. SSE streams never take this path.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http'
import { SvcError } from '@svc/core'
import type { ForwardRequest, Settle } from './forward-types'
import { normaliseUpstreamError } from './normalise'
import { relayed } from './relayed-headers'
import { TAIL } from './reply-text'
import { withAddedHeaders } from './response-headers'
import { usageFromTail } from './usage'

/** The largest reply read whole (FLM's JSON: chat, embeddings, transcripts). */
const MAX_NORMALISED_BODY = 64 * 1024 * 1024

/** Reads a reply whole, lets the provider judge it, and sends either it or the error it stands for. */
export function relayNormalised(
  up: IncomingMessage,
  status: number,
  hop: ForwardRequest,
  settle: Settle,
): void {
  const { finish, fail } = settle
  const chunks: Buffer[] = []
  let size = 0
  let ended = false
  up.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > MAX_NORMALISED_BODY) {
      up.destroy()
      fail(new SvcError('upstream.error', `${hop.who} sent a reply larger than 64 MiB`, { status: 502 }))
      return
    }
    chunks.push(chunk)
  })
  up.on('close', () => {
    if (!ended) fail(new SvcError('upstream.unavailable', `${hop.who} closed the connection mid-reply`))
  })
  up.on('end', () => {
    ended = true
    const data = Buffer.concat(chunks)
    const text = data.toString('utf8')
    let body: unknown
    let parsed = true
    try {
      body = text.trim() === '' ? null : JSON.parse(text)
    } catch {
      parsed = false
    }
    const error = parsed ? hop.normaliseBody?.(status, body) : undefined
    if (error) {
      const json = JSON.stringify(error.body)
      if (!hop.res.destroyed) {
        hop.res.writeHead(
          error.status,
          withAddedHeaders(hop.res, {
            ...error.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(json),
            'x-request-id': hop.requestId,
          }),
        )
        hop.res.end(json)
      }
      finish({ status: error.status, outcome: 'error' })
      return
    }
    if (status >= 400) {
      fail(normaliseUpstreamError(status, text, up.headers['content-type'], hop.who))
      return
    }
    const headers: OutgoingHttpHeaders = { 'x-request-id': hop.requestId }
    for (const [name, value] of Object.entries(up.headers)) {
      if (value !== undefined && relayed(name)) headers[name] = value
    }
    headers['content-length'] = data.length
    hop.res.writeHead(status, withAddedHeaders(hop.res, headers))
    hop.res.end(data)
    const usage = usageFromTail(text.slice(-TAIL))
    finish({ status, outcome: 'ok', ...(usage ? { usage } : {}) })
  })
}
