import type { ServerResponse } from 'node:http'
import { SvcError } from '@svc/core'

/**
 * Writes an error as the JSON error body (docs/architecture.md "Errors"). After headers went out (a stream in flight)
 * nothing can be said any more: the connection is cut so the client sees a failure, not success.
 */
export function writeError(res: ServerResponse, error: unknown, requestId: string): number {
  const err = error instanceof SvcError ? error : new SvcError('internal.error', 'internal error')
  if (res.headersSent) {
    res.destroy()
    return err.status
  }
  if (res.destroyed) return err.status
  const body = JSON.stringify(err.toBody())
  res.writeHead(err.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    ...err.headers,
  })
  res.end(body)
  return err.status
}

/** The SSE error event that ends a stream whose upstream died mid-way (what OpenAI's SDKs read). */
export function sseErrorEvent(error: SvcError): string {
  return `data: ${JSON.stringify(error.toBody())}\n\n`
}
