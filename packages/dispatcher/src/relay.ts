/**
 * Relaying an answer as it comes: the head once the first bytes are in (so a FastFlowLM-style "200
 * with an error" can still be answered as an error), then each chunk as it arrives, with
 * backpressure; chunks read in one event-loop turn leave in one write (Node corks the socket
 * itself). The last two chunks are kept (by reference) to read `usage` (token counts) at the end.
 * Nothing else is allocated per chunk.
 */
import { SvcError } from '@svc/core'
import type { Dispatcher } from 'undici'
import type { ForwardRequest, Settle } from './forward-types'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'
import { relayedHeaders } from './relayed-headers'
import { ErrorBodyText, tailOf } from './reply-text'
import { sseErrorEvent } from './respond'
import { withAddedHeaders } from './response-headers'
import { usageFromTail } from './usage'

export class Relay {
  private readonly json: boolean
  private started = false
  private first = true
  private previous: Buffer | undefined
  private last: Buffer | undefined
  /** A disguised error's body being read (FastFlowLM), instead of relaying. */
  private disguised: ErrorBodyText | undefined

  constructor(
    private readonly status: number,
    private readonly headers: Record<string, string | string[] | undefined>,
    private readonly sse: boolean,
    private readonly hop: ForwardRequest,
    private readonly settle: Settle,
    private readonly controller: Dispatcher.DispatchController,
  ) {
    this.json = /json/i.test(String(headers['content-type'] ?? ''))
  }

  data(chunk: Buffer): void {
    if (this.disguised) {
      this.disguised.push(chunk)
      return
    }
    const { res } = this.hop
    if (this.first) {
      this.first = false
      // FastFlowLM-style "HTTP 200 with {"error":…}": an error in disguise (only JSON, first chunk).
      if (this.json && looksLikeErrorBody(chunk.toString('utf8', 0, Math.min(chunk.length, 64)))) {
        this.disguised = new ErrorBodyText()
        this.disguised.push(chunk)
        return
      }
      this.start()
    }
    if (this.json || this.sse) {
      this.previous = this.last
      this.last = chunk
    }
    // No cork here: Node corks the socket for the rest of the event-loop turn at each write, so the
    // chunks read in one turn already leave in one writev (one syscall), never later than that turn.
    if (!res.write(chunk)) {
      this.controller.pause()
      res.once('drain', this.resume)
    }
  }

  end(): void {
    if (this.disguised) {
      this.settle.fail(normaliseUpstreamError(500, this.disguised.text(), 'application/json', this.hop.who))
      return
    }
    if (!this.started) this.start()
    // The client's answer ends first; the token counts are read from the kept chunks after.
    this.hop.res.end()
    const usage = this.last ? usageFromTail(tailOf(this.previous, this.last)) : undefined
    this.settle.finish({ status: this.status, outcome: 'ok', ...(usage ? { usage } : {}) })
  }

  /** The upstream died after its head: an SSE client gets an error event, anyone else a cut. */
  error(): void {
    if (this.disguised) {
      this.end()
      return
    }
    const { res, who } = this.hop
    if (!this.started) {
      this.settle.fail(new SvcError('upstream.unavailable', `${who} closed the connection before answering`))
      return
    }
    if (this.sse && !res.destroyed) {
      res.end(
        sseErrorEvent(
          res,
          new SvcError('upstream.unavailable', `${who} stopped in the middle of the stream`),
        ),
      )
    } else res.destroy()
    this.settle.finish({ status: 502, outcome: 'upstream-died' })
  }

  private start(): void {
    this.started = true
    const { hop } = this
    const headers = relayedHeaders(this.headers, hop.requestId)
    if (this.sse) {
      headers['cache-control'] = 'no-cache'
      headers['x-accel-buffering'] = 'no'
      delete headers['content-length']
    }
    // Headers already out: a stream svc opened while the request waited for a load.
    if (!hop.res.headersSent) hop.res.writeHead(this.status, withAddedHeaders(hop.res, headers))
  }

  private readonly resume = () => this.controller.resume()
}
