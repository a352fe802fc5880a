import { ERROR_CODES, type ErrorCode, readErrorBody, SvcError } from '@svc/core'

export interface SvcApiOptions {
  /** `SVC_CHAT_API_URL`, no trailing slash. */
  baseUrl: string
  /** `SVC_CHAT_API_TOKEN`; sent as the bearer on every call, never to a browser. */
  token: string | undefined
}

export interface SvcApi {
  readonly baseUrl: string
  readonly hasToken: boolean
  /**
   * Calls the API at `path` (e.g. `/v1/chat/completions`) with the chat app's token. Resolves with
   * the response whatever its status; a network failure rejects with 502 `upstream.unavailable`, an
   * abort with the signal's reason.
   */
  call(path: string, init?: RequestInit): Promise<Response>
  /** Like `call`, but a non-2xx answer is thrown as the SvcError the browser should see. */
  ok(path: string, init?: RequestInit): Promise<Response>
}

/** The chat server's only way to the svc API (`/v1/*` is all a `v1-only` token may call). */
export function createSvcApi(options: SvcApiOptions): SvcApi {
  const auth = options.token ? { authorization: `Bearer ${options.token}` } : undefined
  const api: SvcApi = {
    baseUrl: options.baseUrl,
    hasToken: Boolean(options.token),
    async call(path, init = {}) {
      const headers = new Headers(init.headers)
      if (auth) headers.set('authorization', auth.authorization)
      try {
        return await fetch(`${options.baseUrl}${path}`, { ...init, headers })
      } catch (error) {
        if (init.signal?.aborted) throw init.signal.reason
        throw new SvcError(
          'upstream.unavailable',
          `cannot reach the svc API at ${options.baseUrl} (SVC_CHAT_API_URL): ${(error as Error).cause ?? (error as Error).message}`,
          { cause: error },
        )
      }
    },
    async ok(path, init) {
      const res = await api.call(path, init)
      if (res.ok) return res
      throw await apiFailure(res, api.hasToken)
    },
  }
  return api
}

/**
 * The `RequestInit` of a JSON POST to the API: `body` as JSON, cancelled by `signal`; `headers` adds
 * to the content type (e.g. `accept: text/event-stream` for a streamed answer).
 */
export function postJson(
  body: unknown,
  signal: AbortSignal,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  }
}

/**
 * What the operator must do when the API wants a token and the chat app has none. A token alone is
 * not enough: the chat app spends it only for people its reverse proxy signs in.
 */
export const NO_TOKEN =
  'svc requires a token and the chat app has none: `svc install --auth=basic` sets it up behind the proxy; by hand, set SVC_CHAT_API_TOKEN (a v1-only token, `svc token create --label chat --scope v1-only`) together with SVC_CHAT_TRUSTED_HEADER and SVC_PROXY_SECRET (the chat app uses its token only for people the proxy signs in), and restart it'

/**
 * Turns an API error answer into the error the browser is shown. The API refusing the chat app's own
 * credentials (a 401/403 with an `auth.*` code, or none) is not the person's fault: it becomes 502
 * `upstream.auth` with a message that says what the operator must fix. Other svc errors (`model.not_loaded`, `request.invalid`, …) keep their code
 * and status; anything else is `upstream.error` with the API's status.
 */
export async function apiFailure(res: Response, hasToken: boolean): Promise<SvcError> {
  const { code, message, param } = readErrorBody(await res.text().catch(() => ''), res.statusText)
  // A 401/403 with a code of its own is not about the chat app's credentials: `hub.unauthorized` is
  // the Hugging Face Hub refusing svc a gated model that a request loads on demand.
  const ownCode = !!code && code in ERROR_CODES && !code.startsWith('auth.')
  if ((res.status === 401 || res.status === 403) && !ownCode) {
    const why = !hasToken
      ? NO_TOKEN
      : res.status === 401
        ? 'svc refused the chat app’s token (SVC_CHAT_API_TOKEN): it is wrong or was revoked; create a new one with `svc token create --label chat --scope v1-only`'
        : 'the chat app’s token (SVC_CHAT_API_TOKEN) may not do this; it needs the v1-only scope or wider'
    return new SvcError('upstream.auth', `${why} (the API said: ${message})`)
  }
  if (ownCode) {
    return new SvcError(code as ErrorCode, message, { param, status: res.status })
  }
  return new SvcError('upstream.error', message, { status: res.status >= 400 ? res.status : 502 })
}
