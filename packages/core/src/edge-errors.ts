/**
 * The errors the API and the chat server answer with at their HTTP edge, before or around their own
 * handlers. Both are Hono apps, and Hono stays in apps (docs/architecture.md), so what they share is
 * here as plain values: they pass these to Hono's `methodNotAllowed`, `bodyLimit` and `onError`.
 */
import { isSvcError, SvcError } from './errors'

/**
 * Anything a server's handler threw, as the `SvcError` to answer with: an `SvcError` as it is; an
 * HTTP error that the web framework threw for a bad request (an `Error` with a numeric `status`:
 * Hono's `HTTPException` from its body limit or validator) as 413 `request.too_large` or 400
 * `request.invalid` with its message; anything else is 500 `internal.error` (a bug: log the cause).
 */
export function toSvcError(error: unknown): SvcError {
  if (isSvcError(error)) return error
  const status = error instanceof Error && 'status' in error ? error.status : undefined
  if (status === 413) return new SvcError('request.too_large', 'request body is larger than allowed')
  if (status === 400) return new SvcError('request.invalid', (error as Error).message || 'malformed request')
  return new SvcError('internal.error', 'internal error')
}

/**
 * Refuses a known path asked with another method: throws 405 `method.not_allowed` whose `Allow`
 * lists `methods`. Shaped as a router's not-allowed handler (Hono's `methodNotAllowed({
 * onMethodNotAllowed })`); its first argument, the framework's request context, is never read.
 */
export function refuseMethod(_context: unknown, methods: readonly string[]): never {
  throw new SvcError('method.not_allowed', `method not allowed; use ${methods.join(', ')}`, {
    headers: { Allow: methods.join(', ') },
  })
}

/** What a body-limit middleware (Hono's `bodyLimit`) takes: a size, and what to do past it. */
export interface BodySizeLimit {
  maxSize: number
  /** Throws 413 `request.too_large`, so the app's one error renderer answers. */
  onError: () => never
}

/**
 * A request body limit of `maxSize` bytes whose refusal is 413 `request.too_large` with `message`
 * (default: the limit in bytes). Counts the bytes as they arrive, so a chunked body is cut off too.
 */
export function bodySizeLimit(
  maxSize: number,
  message = `request body is larger than ${maxSize} bytes`,
): BodySizeLimit {
  return {
    maxSize,
    onError: () => {
      throw new SvcError('request.too_large', message)
    },
  }
}
