/**
 * The one error family of svc (docs/architecture.md "Errors"). Failures are thrown as `SvcError`;
 * `renderError` (the one renderer) turns anything thrown into `{"error":{code,message,type,param}}`
 * with its status and headers, for the Hono app and the raw inference path alike.
 */

export const ERROR_CODES = {
  'auth.required': { status: 401, type: 'authentication_error' },
  'auth.invalid': { status: 401, type: 'authentication_error' },
  'auth.forbidden': { status: 403, type: 'permission_error' },
  'auth.throttled': { status: 429, type: 'rate_limit_error' },
  /** A token's or a person's quota is used up; the message names the limit, `Retry-After` says when. */
  'quota.exceeded': { status: 429, type: 'rate_limit_error' },
  /** The request's `Host` is not a name svc answers to (DNS rebinding); the message says how to add one. */
  'host.forbidden': { status: 403, type: 'permission_error' },
  'model.not_found': { status: 404, type: 'invalid_request_error' },
  'model.not_loaded': { status: 409, type: 'invalid_request_error' },
  /** A model a slot holds cannot be deleted (unload it first). */
  'model.in_use': { status: 409, type: 'invalid_request_error' },
  'slot.not_found': { status: 404, type: 'invalid_request_error' },
  'token.not_found': { status: 404, type: 'invalid_request_error' },
  /** An uploaded voice reference (`/v1/audio/voices/:name`). */
  'voice.not_found': { status: 404, type: 'invalid_request_error' },
  'backend.unavailable': { status: 409, type: 'invalid_request_error' },
  /** A load that does not fit in its device's memory budget; the message names what holds it. */
  'memory.insufficient': { status: 409, type: 'invalid_request_error' },
  'slot.unavailable': { status: 503, type: 'server_error' },
  /** A server's cap on connections or live streams is reached (with `Retry-After`). */
  'server.busy': { status: 503, type: 'server_error' },
  /** The slot's request queue is full (`max_queue`); with `Retry-After`. */
  'slot.busy': { status: 429, type: 'rate_limit_error' },
  'request.invalid': { status: 400, type: 'invalid_request_error' },
  'request.too_large': { status: 413, type: 'invalid_request_error' },
  /**
   * The prompt does not fit in the context the model runs with (llama-server's
   * `exceed_context_size_error`); the message names both sizes and the slot's `ctx_size`.
   */
  'context.too_long': { status: 400, type: 'invalid_request_error' },
  /** An upload for transcription that is not audio svc can read (the engine's conversion failed). */
  'audio.unreadable': { status: 400, type: 'invalid_request_error' },
  /**
   * The Hugging Face Hub refused a gated or private repo: 401 without `HF_TOKEN`, 403 when the token
   * is not approved for it. The message names the repo and what to do.
   */
  'hub.unauthorized': { status: 401, type: 'authentication_error' },
  /** The Hub is rate-limiting svc (its 429); `HF_TOKEN` raises the limit. */
  'hub.rate_limited': { status: 429, type: 'rate_limit_error' },
  'upstream.unavailable': { status: 502, type: 'server_error' },
  'upstream.timeout': { status: 504, type: 'server_error' },
  // So that every response, even for a wrong URL, has the same body.
  'route.not_found': { status: 404, type: 'invalid_request_error' },
  'method.not_allowed': { status: 405, type: 'invalid_request_error' },
  /** A route of another API svc speaks (Ollama's `create`, `push`…) that svc does not implement. */
  'route.not_implemented': { status: 501, type: 'invalid_request_error' },
  /** An upstream answered with an error of its own; the status is the upstream's. */
  'upstream.error': { status: 502, type: 'server_error' },
  'internal.error': { status: 500, type: 'server_error' },
  // The chat app (apps/chat): its own resources, and the API refusing the chat app's token.
  'conversation.not_found': { status: 404, type: 'invalid_request_error' },
  'conversation.busy': { status: 409, type: 'invalid_request_error' },
  'file.not_found': { status: 404, type: 'invalid_request_error' },
  'upstream.auth': { status: 502, type: 'server_error' },
  /** A person's stored files (chat uploads and generated images) would pass their quota. */
  'storage.quota_exceeded': { status: 413, type: 'invalid_request_error' },
  /** A config file svc must change (tokens.toml) does not parse: fix it first; svc never overwrites it. */
  'config.invalid': { status: 409, type: 'server_error' },
} as const satisfies Record<string, { status: number; type: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export interface ErrorBody {
  error: { code: string; message: string; type: string; param: string | null }
}

export interface SvcErrorOptions {
  param?: string | null
  /** Overrides the code's default status (`upstream.error` mirrors the upstream; the HTTP parser's 431 and 408). */
  status?: number
  /** Overrides the OpenAI `type` (only for errors that mirror an upstream's). */
  type?: string
  /** Response headers the error needs (`Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>
  cause?: unknown
}

export class SvcError extends Error {
  override readonly name = 'SvcError'
  readonly code: ErrorCode
  readonly status: number
  readonly type: string
  readonly param: string | null
  readonly headers: Readonly<Record<string, string>>

  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status ?? ERROR_CODES[code].status
    this.type = options.type ?? ERROR_CODES[code].type
    this.param = options.param ?? null
    this.headers = options.headers ?? {}
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, type: this.type, param: this.param } }
  }
}

export function isSvcError(value: unknown): value is SvcError {
  return value instanceof SvcError
}

/** An error as an HTTP answer. */
export interface RenderedError {
  status: number
  /** `content-type` and what the error needs (`Retry-After`, `WWW-Authenticate`, `Allow`). */
  headers: Record<string, string>
  /** The JSON error body, as text. */
  body: string
  /** Not an `SvcError`: a bug. The body says nothing of it; the caller logs it with the request id. */
  unexpected: boolean
}

/**
 * The one error renderer: an `SvcError` answers with its status, headers and body; anything else is
 * 500 `internal.error` whose body reveals nothing. Pure: writing the answer is the caller's.
 */
const CLOSE = { connection: 'close' }

export function renderError(error: unknown): RenderedError {
  const unexpected = !isSvcError(error)
  const err = unexpected ? new SvcError('internal.error', 'internal error') : error
  return {
    status: err.status,
    // After a 413 the rest of the body is not read: the connection closes with the answer, so a
    // client that keeps sending cannot make the server take (and pay for) what it refused.
    headers: { 'content-type': 'application/json', ...(err.status === 413 ? CLOSE : {}), ...err.headers },
    body: JSON.stringify(err.toBody()),
    unexpected,
  }
}
