import type { ServerResponse } from 'node:http'
import { renderErrorFor, type SvcError, sseErrorEventFor } from '@svc/core'
import { openedForLoading } from './loading-notice'
import { withAddedHeaders } from './response-headers'

/**
 * Writes an error as svc's error body in the shape of the request's surface (`renderErrorFor`:
 * Anthropic's under `/v1/messages`, OpenAI's elsewhere; docs/architecture.md "Errors"). After headers
 * went out (a stream in flight) nothing can be said any more: the connection is cut so the client
 * sees a failure, not success. Returns the status.
 */
export function writeError(res: ServerResponse, error: unknown, requestId: string): number {
  const rendered = renderErrorFor(pathOf(res), error)
  if (res.headersSent) {
    // A stream svc opened early (a request waiting for a load, see loading-notice.ts): the error
    // goes out as its last event. Any other answer under way is cut, so the client sees a failure.
    const eventStream =
      openedForLoading(res) || /text\/event-stream/.test(String(res.getHeader('content-type') ?? ''))
    if (eventStream && !res.writableEnded) {
      res.end(`event: error\ndata: ${rendered.body}\n\n`)
    } else res.destroy()
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

/** The SSE error event that ends a stream whose upstream died mid-way (what the clients' SDKs read). */
export function sseErrorEvent(res: ServerResponse, error: SvcError): string {
  return sseErrorEventFor(pathOf(res), error)
}

/** The request path (`res.req`: the request this response answers). */
function pathOf(res: ServerResponse): string | undefined {
  return (res.req as { url?: string } | undefined)?.url
}
