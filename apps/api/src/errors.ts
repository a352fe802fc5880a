import { renderErrorFor, toSvcError } from '@svc/core'
import type { Logger } from '@svc/core/node'
import type { Context } from 'hono'

/**
 * The Hono app's answer to any thrown error (its `onError`, and its not-found): Hono's own
 * exceptions become `SvcError`s (core's `toSvcError`), `renderErrorFor` (core) makes the answer in
 * the shape of the path's surface.
 * Handlers throw `SvcError`; nothing else catches and logs. Unknown errors are logged once, with the request id, and become a
 * 500 whose body reveals nothing. Request bodies are read with core's `parseJsonRequest` (its own 400s),
 * so a `SyntaxError` that reaches here is a bug like any other, not the client's bad JSON.
 */
export function errorResponse(error: unknown, c: Context, logger: Logger): Response {
  const svc = toSvcError(error)
  if (svc.code === 'internal.error') {
    logger.error('unhandled error', { requestId: c.get('requestId'), path: c.req.path, error })
  }
  // Anthropic's shape under /v1/messages (an unknown path there too), OpenAI's elsewhere.
  const rendered = renderErrorFor(c.req.path, svc)
  return c.body(rendered.body, rendered.status as 500, rendered.headers)
}
