/**
 * Reading request bodies at the edge, bounded: JSON bodies are read whole (they are small and svc
 * must see `model`); multipart bodies are scanned only until the `model` field is found and then
 * streamed through (`multipart-model.ts`), so an upload is never held whole when `model` precedes
 * the file.
 */
import type { IncomingMessage } from 'node:http'
import { parseJsonRequest, SvcError } from '@svc/core'
import type * as v from 'valibot'

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
        // Read no further: the 413 goes out with `Connection: close` and the socket closes after it.
        req.pause()
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

/**
 * Parses and validates a JSON body (core's `parseJsonRequest`); 400 `request.invalid` with `param`.
 * `accepts`: the schema's cheaper check for the common body (quick-accept.ts), if it has one.
 */
export function parseJsonBody<S extends v.GenericSchema>(
  raw: Buffer,
  contentType: string | undefined,
  schema: S,
  accepts?: (data: Record<string, unknown>) => boolean,
): v.InferOutput<S> {
  return parseJsonRequest(raw.toString('utf8'), contentType, schema, accepts ? { accepts } : {})
}

/**
 * 413 for an upload cut short. Nothing more of it is read: the answer carries `Connection: close`
 * (core's `renderError`) and the socket closes once it is written. A client that reads while it
 * sends (every HTTP library; curl) sees the 413; one that only reads after sending everything sees
 * a reset, which beats the server reading an endless upload for it.
 */
export function uploadTooLarge(req: IncomingMessage, limit: number): SvcError {
  req.pause()
  return tooLarge(limit)
}

/** 413 `request.too_large` naming the limit. */
export function tooLarge(limit: number): SvcError {
  return new SvcError(
    'request.too_large',
    `request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
  )
}
