/**
 * An SSE stream rewritten event by event (relay-fixed.ts): bytes are cut into events as they come
 * (`\n\n` or `\r\n\r\n` apart, UTF-8 kept whole across chunks), each event whose data is a JSON
 * object goes through the fix and leaves re-serialised (`event:` line, one `data:` line), anything
 * else (`[DONE]`, comments, non-JSON data) leaves as it came.
 */
import { StringDecoder } from 'node:string_decoder'
import { isJsonObject } from '@svc/core'
import type { AnswerFix, FixedEvent } from './answer-fix-types'

const BOUNDARY = /\r?\n\r?\n/

export class SseRewriter {
  private readonly decoder = new StringDecoder('utf8')
  private pending = ''

  constructor(private readonly fix: AnswerFix) {}

  /** The text to write for `chunk`: every event it completed, rewritten ('' when none). */
  push(chunk: Buffer): string {
    this.pending += this.decoder.write(chunk)
    let out = ''
    for (let match = BOUNDARY.exec(this.pending); match; match = BOUNDARY.exec(this.pending)) {
      out += this.fixed(this.pending.slice(0, match.index))
      this.pending = this.pending.slice(match.index + match[0].length)
    }
    return out
  }

  /** The text to write at the end: an event the stream left without its blank line. */
  end(): string {
    const rest = this.pending + this.decoder.end()
    this.pending = ''
    return rest.trim() ? this.fixed(rest) : ''
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
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined
  try {
    const value = JSON.parse(text) as unknown
    return isJsonObject(value) ? value : undefined
  } catch {
    return undefined
  }
}
