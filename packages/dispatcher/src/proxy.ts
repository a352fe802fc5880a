/**
 * The streaming hop: one upstream request per client request over a pool of kept-alive connections
 * (undici's `dispatch`, `upstream-pools.ts`), the body passed through as bytes, the response relayed
 * chunk by chunk with backpressure. Client gone → the upstream request is aborted (llama-server stops
 * generating). Upstream gone mid-stream → an SSE client gets a final `data: {"error":…}` event; any
 * other client sees its connection cut.
 *
 * The answer takes one of four paths once its head is in (`HopHandler.onResponseStart`): relayed as
 * it comes (`relay.ts`), read whole for the provider to judge or svc to correct (`relay-normalised.ts`),
 * a stream corrected event by event (`relay-fixed.ts`, answer-fix.ts), or, for an error status, read
 * (bounded) and answered as svc's error body.
 */
import { PassThrough } from 'node:stream'
import { SvcError } from '@svc/core'
import type { Dispatcher } from 'undici'
import { uploadTooLarge } from './body'
import type { ForwardBody, ForwardRequest, ForwardResult, Settle } from './forward-types'
import { normaliseUpstreamError } from './normalise'
import { pipeCapped } from './pipe-capped'
import { Relay } from './relay'
import { FixedStream } from './relay-fixed'
import { WholeReply } from './relay-normalised'
import { ErrorBodyText } from './reply-text'
import { writeError } from './respond'
import { oneShot } from './upstream-pools'

export type { ForwardBody, ForwardRequest, ForwardResult, NormaliseBody, Settle } from './forward-types'

/** What a kept-alive connection that the upstream had already closed fails with when reused. */
const STALE = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'])
/** Connection errors that mean the request got no answer from the upstream at all. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
])
const CLIENT_GONE = new Error('client closed the connection')

export function forward(hop: ForwardRequest): Promise<ForwardResult> {
  return new Promise((resolve) => new HopHandler(hop, resolve).start())
}

/** What reads the answer once its head is in: a relay, a whole-reply reader, or an error reader. */
interface Reader {
  data(chunk: Buffer): void
  end(): void
  /** The upstream failed after the head came. */
  error(error: Error): void
}

/** undici's handler for one hop: each callback is one step of the answer. */
class HopHandler implements Dispatcher.DispatchHandler, Settle {
  private done = false
  private gone = false
  private controller: Dispatcher.DispatchController | undefined
  private reader: Reader | undefined
  private offGone: () => void = noop
  private ownDispatcher: { close(): Promise<void> } | undefined

  constructor(
    private readonly hop: ForwardRequest,
    private readonly resolve: (result: ForwardResult | Promise<ForwardResult>) => void,
  ) {}

  start(): void {
    const { hop } = this
    this.offGone = hop.client.onGone(() => {
      this.gone = true
      this.controller?.abort(CLIENT_GONE)
      this.finish({ status: 499, outcome: 'client-gone' })
    })
    if (this.done) return
    const dispatcher = hop.fresh ? oneShot(hop.url) : hop.pool
    if (hop.fresh) this.ownDispatcher = dispatcher as typeof this.ownDispatcher
    hop.onUpstreamRequest?.()
    dispatcher.dispatch(
      {
        path: hop.url.pathname + hop.url.search,
        method: 'POST',
        headers: hop.headers,
        body: bodyOf(hop.body, this),
        headersTimeout: hop.timeoutMs,
        bodyTimeout: 0,
      },
      this,
    )
  }

  finish = (result: ForwardResult): void => {
    if (this.done) return
    this.done = true
    this.offGone()
    if (this.ownDispatcher) void this.ownDispatcher.close().catch(noop)
    this.resolve(result)
  }

  fail = (error: SvcError): void => {
    if (this.done) return
    this.finish({ status: writeError(this.hop.res, error, this.hop.requestId), outcome: 'error' })
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.gone) controller.abort(CLIENT_GONE)
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.hop.onFirstByte?.()
    if (this.done) return
    const type = String(headers['content-type'] ?? '')
    const sse = /text\/event-stream/i.test(type)
    const { fix } = this.hop
    if (fix && sse && status < 300) {
      this.reader = new FixedStream(status, headers, fix, this.hop, this, this.controller!)
    } else if ((this.hop.normaliseBody || fix) && !sse)
      this.reader = new WholeReply(status, headers, this.hop, this)
    else if (status >= 400) this.reader = this.errorReader(status, type)
    else this.reader = new Relay(status, headers, sse, this.hop, this, this.controller!)
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.done) this.reader?.data(chunk)
  }

  onResponseEnd(): void {
    if (!this.done) this.reader?.end()
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.done) return
    if (this.reader) {
      this.reader.error(error)
      return
    }
    const { hop } = this
    if (error instanceof SvcError) {
      this.fail(error) // the upload went over its cap
      return
    }
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      this.fail(
        new SvcError(
          'upstream.timeout',
          `${hop.who} did not answer within ${Math.round(hop.timeoutMs / 1000)} s`,
        ),
      )
      return
    }
    // A kept-alive connection the upstream closed (idle timeout, request cap) just as it was
    // reused: nothing reached it. A buffered body goes once more on a new connection; a streamed
    // one cannot be replayed.
    if (!hop.fresh && hop.body.kind === 'buffer' && STALE.has(code)) {
      this.done = true
      this.offGone()
      this.resolve(forward({ ...hop, fresh: true }))
      return
    }
    const cause = code || error.message
    if (hop.retryUnreachable && hop.body.kind === 'buffer' && UNREACHABLE.has(code)) {
      this.finish({ status: 0, outcome: 'unreachable', cause })
      return
    }
    this.fail(new SvcError('upstream.unavailable', `${hop.who} is unreachable (${cause})`, { cause: error }))
  }

  /** An error status: its body is read (bounded) and answered as svc's error body. */
  private errorReader(status: number, type: string): Reader {
    const body = new ErrorBodyText()
    const answer = () =>
      this.fail(normaliseUpstreamError(status, body.text(), type, this.hop.who, this.hop.normaliseError))
    return { data: (chunk) => body.push(chunk), end: answer, error: answer }
  }
}

/** The request body as undici sends it: a buffer as it is, an upload streamed under its cap. */
function bodyOf(body: ForwardBody, settle: Settle): Buffer | PassThrough {
  if (body.kind === 'buffer') return body.data
  const out = new PassThrough()
  for (const chunk of body.head) out.write(chunk)
  pipeCapped(body.rest, out, body.maxRestBytes, () => {
    const error = uploadTooLarge(body.rest, body.limit)
    settle.fail(error)
    out.destroy(error)
  })
  return out
}

function noop(): void {}
