/**
 * The reader for providers whose errors hide in successes (`ForwardRequest.normaliseBody`,
 * FastFlowLM): the reply is read whole (bounded), judged by the provider, and either sent as it came
 * or replaced by the error it stands for. A JSON success whose request has a fix
 * (`ForwardRequest.fix`, answer-fix.ts) is read whole too and sent corrected. SSE streams never take
 * this path.
 */
import { isJsonObject, SvcError } from '@svc/core'
import type { ForwardRequest, Settle } from './forward-types'
import { normaliseUpstreamError } from './normalise'
import { relayedHeaders } from './relayed-headers'
import { TAIL } from './reply-text'
import { withAddedHeaders } from './response-headers'
import { usageFromTail } from './usage'

/** The largest reply read whole (FLM's JSON: chat, embeddings, transcripts). */
const MAX_NORMALISED_BODY = 64 * 1024 * 1024

export class WholeReply {
  private readonly chunks: Buffer[] = []
  private size = 0
  private over = false

  constructor(
    private readonly status: number,
    private readonly headers: Record<string, string | string[] | undefined>,
    private readonly hop: ForwardRequest,
    private readonly settle: Settle,
  ) {}

  data(chunk: Buffer): void {
    if (this.over) return
    this.size += chunk.length
    if (this.size > MAX_NORMALISED_BODY) {
      this.over = true
      this.settle.fail(
        new SvcError('upstream.error', `${this.hop.who} sent a reply larger than 64 MiB`, { status: 502 }),
      )
      return
    }
    this.chunks.push(chunk)
  }

  error(): void {
    this.settle.fail(new SvcError('upstream.unavailable', `${this.hop.who} closed the connection mid-reply`))
  }

  end(): void {
    if (this.over) return
    const { hop, status } = this
    const data = Buffer.concat(this.chunks)
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
      this.settle.finish({ status: error.status, outcome: 'error' })
      return
    }
    if (status >= 400) {
      this.settle.fail(
        normaliseUpstreamError(
          status,
          text,
          String(this.headers['content-type'] ?? ''),
          hop.who,
          hop.normaliseError,
        ),
      )
      return
    }
    const fixed = hop.fix && parsed && isJsonObject(body) ? JSON.stringify(hop.fix.json(body)) : undefined
    const headers = relayedHeaders(this.headers, hop.requestId)
    headers['content-length'] = fixed === undefined ? data.length : Buffer.byteLength(fixed)
    hop.res.writeHead(status, withAddedHeaders(hop.res, headers))
    hop.res.end(fixed ?? data)
    const usage = usageFromTail(text.slice(-TAIL))
    this.settle.finish({ status, outcome: 'ok', ...(usage ? { usage } : {}) })
  }
}
