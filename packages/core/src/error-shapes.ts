/**
 * Each surface keeps its own error shape at its edge, rendered from the one `SvcError`: OpenAI's
 * `{"error":{code,message,type,param}}` everywhere (`renderError`), Anthropic's
 * `{"type":"error","error":{type,message}}` under `/v1/messages` so that Anthropic's SDKs raise the
 * right exception. svc's dotted code stays visible there as `error.svc_code` (and `param` beside it).
 * The shape is chosen by path alone, so an auth refusal, a bad body, an unknown model and a
 * normalised upstream error all come out the same way on a path.
 */
import { isSvcError, type RenderedError, renderError, SvcError } from './errors'

export type ErrorShape = 'openai' | 'anthropic'

/** Anthropic's paths: `/v1/messages` and everything under it (count_tokens, and unknown ones). */
export function errorShapeFor(path: string | undefined): ErrorShape {
  if (!path?.startsWith('/v1/messages')) return 'openai'
  const rest = path.charCodeAt(12)
  // `/v1/messages`, `/v1/messages/…`, `/v1/messages?…`; not `/v1/messagesX`.
  return Number.isNaN(rest) || rest === 47 || rest === 63 ? 'anthropic' : 'openai'
}

/** Anthropic's error `type` for an svc error, by status (what its SDKs map to exception classes). */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 503 || status === 529) return 'overloaded_error'
  if (status === 504) return 'timeout_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}

export interface AnthropicErrorBody {
  type: 'error'
  error: { type: string; message: string; svc_code: string; param: string | null }
}

export function anthropicErrorBody(error: SvcError): AnthropicErrorBody {
  return {
    type: 'error',
    error: {
      type: anthropicErrorType(error.status),
      message: error.message,
      svc_code: error.code,
      param: error.param,
    },
  }
}

/** `renderError` in the shape of `path`'s surface: same status and headers, another body. */
export function renderErrorFor(path: string | undefined, error: unknown): RenderedError {
  const rendered = renderError(error)
  if (errorShapeFor(path) === 'openai') return rendered
  const err = isSvcError(error) ? error : new SvcError('internal.error', 'internal error')
  return { ...rendered, body: JSON.stringify(anthropicErrorBody(err)) }
}

/**
 * The event that ends a stream whose upstream died mid-way, in the surface's shape: OpenAI's SDKs
 * read `data: {"error":…}`, Anthropic's an `error` event.
 */
export function sseErrorEventFor(path: string | undefined, error: SvcError): string {
  if (errorShapeFor(path) === 'anthropic') {
    return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error))}\n\n`
  }
  return `data: ${JSON.stringify(error.toBody())}\n\n`
}
