/**
 * Reading request bodies at the edge, bounded: JSON bodies are read whole (they are small and svc
 * must see `model`); multipart bodies are scanned only until the `model` field is found and then
 * streamed through, so an upload is never held whole when `model` precedes the file.
 */
import type { IncomingMessage } from 'node:http'
import { SvcError } from '@svc/core'
import * as v from 'valibot'
import { assertJsonDepth } from './json-depth'

/**
 * Reads the whole body up to `limit` bytes; 413 `request.too_large` beyond. Event listeners rather
 * than an async iterator: this runs on every inference request.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN)
  if (declared > limit) return Promise.reject(tooLarge(limit))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        req.resume() // drain what is left so the 413 can be written on a sane socket
        reject(tooLarge(limit))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}

/** Parses and validates a JSON body; 400 `request.invalid` with `param` for the first problem. */
export function parseJsonBody<S extends v.GenericSchema>(
  raw: Buffer,
  contentType: string | undefined,
  schema: S,
): v.InferOutput<S> {
  if (contentType && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new SvcError(
      'request.invalid',
      `expected a JSON body (content-type application/json), got ${contentType}`,
    )
  }
  let data: unknown
  const text = raw.toString('utf8')
  assertJsonDepth(text)
  try {
    data = JSON.parse(text)
  } catch {
    throw new SvcError('request.invalid', 'request body is not valid JSON')
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SvcError('request.invalid', 'request body must be a JSON object')
  }
  const result = v.safeParse(schema, data)
  if (result.success) return result.output
  const issue = result.issues[0]
  const param = v.getDotPath(issue)
  throw new SvcError('request.invalid', param ? `${param}: ${issue.message}` : issue.message, { param })
}

export interface MultipartHead {
  model: string
  /** Bytes read while looking for `model`; send them first, then the rest of `req`. */
  head: Buffer[]
  bytesRead: number
}

const MODEL_PART = /name="model"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n([^\r\n]{0,512})\r\n--/

/**
 * Reads a multipart/form-data body until its `model` field is complete. Bounded by `limit`
 * (413); a body that ends without `model` is 400 `request.invalid` with param `model`.
 */
export async function scanMultipartModel(req: IncomingMessage, limit: number): Promise<MultipartHead> {
  const type = req.headers['content-type'] ?? ''
  if (!/^multipart\/form-data;.*boundary=/i.test(type)) {
    throw new SvcError('request.invalid', 'expected a multipart/form-data body with a boundary', {
      param: 'file',
    })
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN)
  if (declared > limit) throw tooLarge(limit)
  const head: Buffer[] = []
  let bytesRead = 0
  let carry = ''
  // destroyOnReturn: false — returning early must leave the rest of the upload readable.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    bytesRead += chunk.length
    if (bytesRead > limit) throw tooLarge(limit)
    head.push(chunk)
    // latin1 maps bytes 1:1 to chars, so a match never splits a multi-byte character wrongly
    const window = carry + chunk.toString('latin1')
    const m = MODEL_PART.exec(window)
    if (m) {
      req.pause()
      const model = Buffer.from(m[1]!, 'latin1').toString('utf8').trim()
      if (!model) throw new SvcError('request.invalid', 'model must not be empty', { param: 'model' })
      return { model, head, bytesRead }
    }
    carry = window.slice(-2048)
  }
  throw new SvcError('request.invalid', 'model is required (a "model" form field)', { param: 'model' })
}

function tooLarge(limit: number): SvcError {
  return new SvcError(
    'request.too_large',
    `request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
  )
}
