import { isSvcError, SvcError } from '@svc/core'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { Logger } from './logger'

/**
 * The one renderer that turns any thrown error into the JSON error body (docs/architecture.md "Errors"). Handlers throw
 * `SvcError`; nothing else catches and logs. Unknown errors are logged once and become a 500 whose
 * body reveals nothing but the request id.
 */
export function renderError(error: unknown, c: Context, logger: Logger): Response {
  const svc = toSvcError(error)
  if (svc.code === 'internal.error') {
    logger.error('unhandled error', { requestId: c.get('requestId'), path: c.req.path, error })
  }
  return c.json(svc.toBody(), svc.status as 400, svc.headers)
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
