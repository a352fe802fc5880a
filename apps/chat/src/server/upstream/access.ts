import { SvcError } from '@svc/core'
import { NO_TOKEN, type SvcApi } from './svc-api'

interface AuthStatus {
  enabled?: boolean
  caller?: { via?: string; scope?: string } | null
}

/** Scopes that may call `/v1/*` inference. */
const INFERENCE_SCOPES = new Set(['admin', 'all', 'v1-only'])

/**
 * Whether the chat app's token lets it chat, asked before anything fails: `GET /v1/models` is open
 * even with auth on, so only the API's `GET /api/auth/status` (open too, and it says who the sent
 * credentials belong to) can tell a missing or refused token in advance. Throws 502 `upstream.auth`
 * with what the operator must fix; resolves when all is well, auth is off, or the API is too old to
 * say.
 */
export async function checkAccess(api: SvcApi, signal?: AbortSignal): Promise<void> {
  const res = await api.call('/api/auth/status', signal ? { signal } : {})
  if (!res.ok) {
    await res.body?.cancel()
    return
  }
  const status = (await res.json()) as AuthStatus
  if (!status.enabled) return
  const caller = status.caller
  if (!caller) {
    throw new SvcError(
      'upstream.auth',
      api.hasToken
        ? 'svc refused the chat app’s token (SVC_CHAT_API_TOKEN): it is wrong or was revoked; create a new one with `svc token create --label chat --scope v1-only` and restart the chat app'
        : NO_TOKEN,
    )
  }
  if (caller.via === 'token' && caller.scope && !INFERENCE_SCOPES.has(caller.scope)) {
    throw new SvcError(
      'upstream.auth',
      `the chat app’s token (SVC_CHAT_API_TOKEN) has the scope "${caller.scope}", which may not chat; it needs v1-only (or wider)`,
    )
  }
}
