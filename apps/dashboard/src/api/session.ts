/**
 * Who is using the dashboard and what they may do. Behind the proxy the forwarded identity is admin;
 * opened directly with auth on, the person pastes a token, kept in `sessionStorage` (gone when the
 * tab closes, never in `localStorage`) and sent as `Authorization: Bearer`.
 */
import type { Scope } from '@svc/auth'

const TOKEN_KEY = 'svc.token'

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

export function storeToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token)
  else sessionStorage.removeItem(TOKEN_KEY)
}

/** Headers every API request carries. */
export function authHeaders(): Record<string, string> {
  const token = storedToken()
  return token ? { Authorization: `Bearer ${token}` } : {}
}

export interface Session {
  /** SVC_AUTH_ENABLED. */
  authEnabled: boolean
  /** Effective scope (auth off and the proxy's identity count as admin). */
  scope: Scope
  /** How the caller is known. */
  via: 'off' | 'proxy' | 'token'
  /** Token label or forwarded email. */
  who: string | null
}

/** What a control needs. */
export type Ability = 'read' | 'infer' | 'mutate' | 'tokens'

const NEEDS: Record<Ability, readonly Scope[]> = {
  read: ['admin', 'all', 'read-only'],
  infer: ['admin', 'all', 'v1-only'],
  mutate: ['admin'],
  tokens: ['admin'],
}

const WHAT: Record<Ability, string> = {
  read: 'reading slots and models',
  infer: 'running models',
  mutate: 'changing slots and models',
  tokens: 'managing tokens',
}

export function can(session: Session, ability: Ability): boolean {
  return NEEDS[ability].includes(session.scope)
}

/** Why a control is disabled, in words (undefined when it is allowed). */
export function whyNot(session: Session, ability: Ability): string | undefined {
  if (can(session, ability)) return undefined
  const scopes = NEEDS[ability].filter((s) => s !== 'admin')
  const needs = scopes.length ? `an admin or ${scopes.join(' or ')} token` : 'an admin token'
  return `Your ${session.scope} token does not allow ${WHAT[ability]}: that needs ${needs}.`
}
