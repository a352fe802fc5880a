/**
 * Finding the `model` field of a multipart/form-data upload while it streams in, in linear time.
 *
 * The body is scanned part by part: delimiter line, header block, then either the `model` value or a
 * skip to the next delimiter. Each byte is searched once (`Buffer.indexOf`, carrying only the last
 * few bytes of a chunk into the next for needles that span chunks), so a hostile body — megabytes of
 * `name="model"` lines, thousands of tiny parts, one-byte chunks — costs what its length costs. What
 * must be kept is bounded: part headers up to `MAX_PART_HEADERS`, the model value up to
 * `MAX_MODEL_BYTES`; beyond that 400 `request.invalid`.
 */
import type { IncomingMessage } from 'node:http'
import { SvcError } from '@svc/core'
import { uploadTooLarge } from './body'

export const MAX_PART_HEADERS = 16 * 1024
export const MAX_MODEL_BYTES = 512
/** The delimiter line may carry transport padding (RFC 2046 §5.1.1); not much of it. */
const MAX_DELIMITER_LINE = 256

const CRLF = Buffer.from('\r\n')
const HEADERS_END = Buffer.from('\r\n\r\n')

type Phase = 'seek' | 'line' | 'headers' | 'value'

/** The boundary of a multipart/form-data content type, or undefined when it has none (or a bad one). */
export function multipartBoundary(contentType: string): string | undefined {
  if (!/^multipart\/form-data\s*;/i.test(contentType)) return undefined
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType)
  return m?.[1] ?? m?.[2]
}

/**
 * Feed it the body's chunks in order; `push` returns the model once its field is complete. It keeps
 * every chunk (`chunks`) so the caller can send them on before the rest of the body. Throws
 * `request.invalid` (param `model`) for a body without a usable `model` field, checked by `end()`.
 */
export class MultipartModelScanner {
  readonly chunks: Buffer[] = []
  /** Bytes pushed so far. */
  bytes = 0
  private readonly delimiter: Buffer
  private phase: Phase = 'seek'
  /** Absolute offset where the current search starts (and where a kept region begins). */
  private from = 0
  private regionStart = 0
  /** The last bytes of the previous chunk, so a needle split across two chunks is still found. */
  private carry: Buffer

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1')
    // The first delimiter may open the body without a CRLF before it: pretend there was one.
    this.carry = CRLF
    this.from = -2
  }

  push(chunk: Buffer): string | undefined {
    this.chunks.push(chunk)
    const base = this.bytes - this.carry.length
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    this.bytes += chunk.length
    for (;;) {
      // Absolute offset of `needle` (the fake CRLF before the body sits at -2), or null.
      const at = (needle: Buffer) => {
        const i = buf.indexOf(needle, Math.max(0, this.from - base))
        return i < 0 ? null : base + i
      }
      if (this.phase === 'seek') {
        const i = at(this.delimiter)
        if (i === null) break
        this.phase = 'line'
        this.from = this.regionStart = i + this.delimiter.length
      } else if (this.phase === 'line') {
        const i = at(CRLF)
        if (i === null) {
          if (this.bytes - this.regionStart > MAX_DELIMITER_LINE)
            throw malformed('a delimiter line is too long')
          break
        }
        if (this.bytesAt(this.regionStart, Math.min(i, this.regionStart + 2)).toString('latin1') === '--') {
          throw missingModel()
        }
        // The headers end at the first blank line; searching from this CRLF also finds an empty block.
        this.phase = 'headers'
        this.from = this.regionStart = i
      } else if (this.phase === 'headers') {
        const i = at(HEADERS_END)
        if (i === null) {
          if (this.bytes - this.regionStart > MAX_PART_HEADERS) throw malformed('a part has too many headers')
          break
        }
        const headers = i > this.regionStart ? this.bytesAt(this.regionStart + 2, i).toString('latin1') : ''
        this.phase = partName(headers) === 'model' ? 'value' : 'seek'
        this.from = this.regionStart = i + HEADERS_END.length
      } else {
        const i = at(this.delimiter)
        if (i === null) {
          if (this.bytes - this.regionStart > MAX_MODEL_BYTES + this.delimiter.length) throw tooLong()
          break
        }
        if (i - this.regionStart > MAX_MODEL_BYTES) throw tooLong()
        const model = this.bytesAt(this.regionStart, i).toString('utf8').trim()
        if (!model) throw new SvcError('request.invalid', 'model must not be empty', { param: 'model' })
        if (/[\r\n]/.test(model))
          throw new SvcError('request.invalid', 'model must be one line', { param: 'model' })
        return model
      }
    }
    // Enough to find a needle that starts in this chunk and ends in the next.
    const keep = Math.min(buf.length, this.delimiter.length - 1)
    this.carry = buf.subarray(buf.length - keep)
    return undefined
  }

  /** The body ended without a complete `model` field. */
  end(): never {
    throw missingModel()
  }

  /** Bytes `[start, end)` of the body; they lie in the last few chunks, so walk back from the end. */
  private bytesAt(start: number, end: number): Buffer {
    const parts: Buffer[] = []
    let chunkEnd = this.bytes
    for (let i = this.chunks.length - 1; i >= 0 && chunkEnd > start; i--) {
      const chunk = this.chunks[i]!
      const chunkStart = chunkEnd - chunk.length
      if (chunkStart < end) {
        parts.unshift(
          chunk.subarray(Math.max(0, start - chunkStart), Math.min(chunk.length, end - chunkStart)),
        )
      }
      chunkEnd = chunkStart
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  }
}

export interface MultipartHead {
  model: string
  /** Bytes read while looking for `model`; send them first, then the rest of `req`. */
  head: Buffer[]
  bytesRead: number
}

/**
 * Reads a multipart/form-data body until its `model` field is complete, leaving the rest of `req`
 * unread (paused). Bounded by `limit` (413, also without Content-Length); a body that ends without
 * `model` is 400 `request.invalid` with param `model`.
 */
export async function scanMultipartModel(req: IncomingMessage, limit: number): Promise<MultipartHead> {
  const boundary = multipartBoundary(req.headers['content-type'] ?? '')
  if (!boundary) {
    throw new SvcError('request.invalid', 'expected a multipart/form-data body with a boundary', {
      param: 'file',
    })
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN)
  if (declared > limit) throw uploadTooLarge(req, limit)
  const scanner = new MultipartModelScanner(boundary)
  // destroyOnReturn: false — returning early must leave the rest of the upload readable.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    if (scanner.bytes + chunk.length > limit) throw uploadTooLarge(req, limit)
    const model = scanner.push(chunk)
    if (model !== undefined) {
      req.pause()
      return { model, head: scanner.chunks, bytesRead: scanner.bytes }
    }
  }
  return scanner.end()
}

/** The `name` parameter of a part's Content-Disposition header. */
function partName(headers: string): string | undefined {
  for (const line of headers.split('\r\n')) {
    if (!/^content-disposition\s*:/i.test(line)) continue
    const m = /;\s*name\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(line)
    return m?.[1] ?? m?.[2]
  }
  return undefined
}

function missingModel(): SvcError {
  return new SvcError('request.invalid', 'model is required (a "model" form field)', { param: 'model' })
}

function tooLong(): SvcError {
  return new SvcError('request.invalid', `model is too long (at most ${MAX_MODEL_BYTES} bytes)`, {
    param: 'model',
  })
}

function malformed(why: string): SvcError {
  return new SvcError('request.invalid', `malformed multipart body: ${why}`, { param: 'file' })
}
