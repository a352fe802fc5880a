import type { ServerResponse } from 'node:http'
import { renderError, type SvcError } from '@svc/core'
import { withAddedHeaders } from './response-headers'

/**
 * Writes an error as svc's error body (`renderError`, docs/architecture.md "Errors"). After headers
 * went out (a stream in flight) nothing can be said any more: the connection is cut so the client
 * sees a failure, not success. Returns the status.
 */
export function writeError(res: ServerResponse, error: unknown, requestId: string): number {
  const rendered = renderError(error)
  if (res.headersSent) {
    res.destroy()
    return rendered.status
  }
  if (res.destroyed) return rendered.status
  res.writeHead(
    rendered.status,
    withAddedHeaders(res, {
      ...rendered.headers,
      'content-length': Buffer.byteLength(rendered.body),
      'x-request-id': requestId,
    }),
  )
  res.end(rendered.body)
  return rendered.status
}

/** The SSE error event that ends a stream whose upstream died mid-way (what OpenAI's SDKs read). */
export function sseErrorEvent(error: SvcError): string {
  return `data: ${JSON.stringify(error.toBody())}\n\n`
}
