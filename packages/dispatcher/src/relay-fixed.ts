/**
 * Relaying a 2xx SSE stream whose events need correcting (`ForwardRequest.fix`, answer-fix.ts):
 * each chunk goes through the `SseRewriter` (sse-rewrite.ts) and what it gives back is written, with
 * backpressure as in `relay.ts`; the tail of what was written is kept to read `usage` at the end.
 * Only requests with a fix take this path.
 */
import { SvcError } from '@svc/core'
import type { Dispatcher } from 'undici'
import type { AnswerFix } from './answer-fix-types'
import type { ForwardRequest, Settle } from './forward-types'
import { relayedHeaders } from './relayed-headers'
import { TAIL } from './reply-text'
import { sseErrorEvent } from './respond'
import { withAddedHeaders } from './response-headers'
import { SseRewriter } from './sse-rewrite'
import { usageFromTail } from './usage'

export class FixedStream {
  private readonly rewriter: SseRewriter
  private tail = ''
  private started = false

  constructor(
    private readonly status: number,
    private readonly headers: Record<string, string | string[] | undefined>,
    fix: AnswerFix,
    private readonly hop: ForwardRequest,
    private readonly settle: Settle,
    private readonly controller: Dispatcher.DispatchController,
  ) {
    this.rewriter = new SseRewriter(fix)
  }

  data(chunk: Buffer): void {
    if (!this.started) this.start()
    const out = this.rewriter.push(chunk)
    if (out) this.write(out)
  }

  end(): void {
    if (!this.started) this.start()
    const out = this.rewriter.end()
    this.hop.res.end(out)
    this.keepTail(out)
    const usage = usageFromTail(this.tail)
    this.settle.finish({ status: this.status, outcome: 'ok', ...(usage ? { usage } : {}) })
  }

  /** The upstream died mid-stream: the client gets svc's error event, as on any stream. */
  error(): void {
    const { res, who } = this.hop
    if (!this.started) {
      this.settle.fail(new SvcError('upstream.unavailable', `${who} closed the connection before answering`))
      return
    }
    if (!res.destroyed) {
      res.end(
        sseErrorEvent(
          res,
          new SvcError('upstream.unavailable', `${who} stopped in the middle of the stream`),
        ),
      )
    }
    this.settle.finish({ status: 502, outcome: 'upstream-died' })
  }

  private write(text: string): void {
    this.keepTail(text)
    if (!this.hop.res.write(text)) {
      this.controller.pause()
      this.hop.res.once('drain', this.resume)
    }
  }

  private keepTail(text: string): void {
    this.tail = text.length >= TAIL ? text.slice(-TAIL) : (this.tail + text).slice(-TAIL)
  }

  private start(): void {
    this.started = true
    const { hop } = this
    const headers = relayedHeaders(this.headers, hop.requestId)
    headers['cache-control'] = 'no-cache'
    headers['x-accel-buffering'] = 'no'
    delete headers['content-length']
    if (!hop.res.headersSent) hop.res.writeHead(this.status, withAddedHeaders(hop.res, headers))
  }

  private readonly resume = () => this.controller.resume()
}
