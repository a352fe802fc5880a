import { api, ok } from './client'
import type { Session } from './session'

/**
 * Asks `GET /api/auth/status` (open) who the stored credentials belong to. `null`: auth is on and
 * nobody is signed in (no proxy identity, no valid token): the dashboard asks for a token.
 */
export async function loadSession(): Promise<Session | null> {
  const status = await ok(api.api.auth.status.$get())
  if (!status.enabled) return { authEnabled: false, scope: 'admin', via: 'off', who: null }
  const caller = status.caller
  if (!caller) return null
  if (caller.via === 'proxy') return { authEnabled: true, scope: 'admin', via: 'proxy', who: caller.email }
  return { authEnabled: true, scope: caller.scope, via: 'token', who: caller.label }
}
