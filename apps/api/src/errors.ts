import { isSvcError, renderError, SvcError } from '@svc/core'
import type { Logger } from '@svc/core/node'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'

/**
 * The Hono app's answer to any thrown error (its `onError`, and its not-found): Hono's own
 * exceptions become `SvcError`s, `renderError` (core) makes the answer. Handlers throw `SvcError`;
 * nothing else catches and logs. Unknown errors are logged once, with the request id, and become a
 * 500 whose body reveals nothing.
 */
export function errorResponse(error: unknown, c: Context, logger: Logger): Response {
  const svc = toSvcError(error)
  if (svc.code === 'internal.error') {
    logger.error('unhandled error', { requestId: c.get('requestId'), path: c.req.path, error })
  }
  const rendered = renderError(svc)
  return c.body(rendered.body, rendered.status as 500, rendered.headers)
}

export function toSvcError(error: unknown): SvcError {
  if (isSvcError(error)) return error
  if (error instanceof HTTPException) {
    if (error.status === 413) return new SvcError('request.too_large', 'request body is larger than allowed')
    if (error.status === 400) return new SvcError('request.invalid', error.message || 'malformed request')
  }
  if (error instanceof SyntaxError) return new SvcError('request.invalid', 'request body is not valid JSON')
  return new SvcError('internal.error', 'internal error')
}
