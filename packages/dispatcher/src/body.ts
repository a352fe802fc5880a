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

/** Parses and validates a JSON body (core's `parseJsonRequest`); 400 `request.invalid` with `param`. */
export function parseJsonBody<S extends v.GenericSchema>(
  raw: Buffer,
  contentType: string | undefined,
  schema: S,
): v.InferOutput<S> {
  return parseJsonRequest(raw.toString('utf8'), contentType, schema)
}

/**
 * 413 for an upload cut short. What the client still sends is read and dropped for a short while,
 * then the connection is cut: closing at once (or answering `Connection: close`, which makes Node
 * close right after the response) would reset a socket with unread bytes, and the client could lose
 * the 413 before it reads it.
 */
export function uploadTooLarge(req: IncomingMessage, limit: number): SvcError {
  req.resume()
  const timer = setTimeout(() => req.socket?.destroy(), 2_000)
  timer.unref()
  req.socket?.once('close', () => clearTimeout(timer))
  req.once('end', () => clearTimeout(timer))
  return tooLarge(limit)
}

/** 413 `request.too_large` naming the limit. */
export function tooLarge(limit: number): SvcError {
  return new SvcError(
    'request.too_large',
    `request body is larger than ${Math.round(limit / 1024 / 1024)} MB`,
  )
}
