/**
 * Relaying a 2xx SSE stream whose events need correcting (`ForwardRequest.fix`, answer-fix.ts):
 * the bytes are cut into events as they come (`\n\n` or `\r\n\r\n` apart), each event whose data is
 * a JSON object goes through the fix and leaves re-serialised, anything else (`[DONE]`, comments)
 * leaves as it came. Backpressure as in `relay.ts`; the tail of what was written is kept to read
 * `usage` at the end. Only requests with a fix take this path.
 */
import { StringDecoder } from 'node:string_decoder'
import { SvcError } from '@svc/core'
import type { Dispatcher } from 'undici'
import type { AnswerFix, FixedEvent } from './answer-fix-types'
import type { ForwardRequest, Settle } from './forward-types'
import { relayedHeaders } from './relayed-headers'
import { TAIL } from './reply-text'
import { sseErrorEvent } from './respond'
import { withAddedHeaders } from './response-headers'
import { usageFromTail } from './usage'

const BOUNDARY = /\r?\n\r?\n/

export class FixedStream {
  private readonly decoder = new StringDecoder('utf8')
  private pending = ''
  private tail = ''
  private started = false

  constructor(
    private readonly status: number,
    private readonly headers: Record<string, string | string[] | undefined>,
    private readonly fix: AnswerFix,
    private readonly hop: ForwardRequest,
    private readonly settle: Settle,
    private readonly controller: Dispatcher.DispatchController,
  ) {}

  data(chunk: Buffer): void {
    if (!this.started) this.start()
    this.pending += this.decoder.write(chunk)
    let out = ''
    for (let match = BOUNDARY.exec(this.pending); match; match = BOUNDARY.exec(this.pending)) {
      out += this.fixed(this.pending.slice(0, match.index))
      this.pending = this.pending.slice(match.index + match[0].length)
    }
    if (out) this.write(out)
  }

  end(): void {
    if (!this.started) this.start()
    const rest = this.pending + this.decoder.end()
    const out = rest.trim() ? this.fixed(rest) : ''
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

  /** One event's text (no boundary), corrected and serialised with its boundary. */
  private fixed(block: string): string {
    let name: string | undefined
    let data: string | undefined
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) name = line.slice(6).trim()
      else if (line.startsWith('data:')) {
        const value = line.slice(line.startsWith('data: ') ? 6 : 5)
        data = data === undefined ? value : `${data}\n${value}`
      }
    }
    const parsed = data === undefined ? undefined : parseObject(data)
    if (!parsed) return `${block}\n\n`
    const event: FixedEvent = name === undefined ? { data: parsed } : { event: name, data: parsed }
    let out = ''
    for (const e of this.fix.event(event)) {
      out += `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${JSON.stringify(e.data)}\n\n`
    }
    return out
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

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
