import type { ModelGlobs } from './model-globs'
import type { Scope } from './policy'

/** A caller holding a verified bearer token. */
export interface TokenPrincipal {
  kind: 'token'
  scope: Scope
  tokenId: string
  label: string
  /**
   * The models it may use, compiled; undefined for every model. (Always present on a verified token's
   * principal, undefined or not, so that every principal has one shape.)
   */
  models?: ModelGlobs | undefined
}

/** A person the trusted reverse proxy vouches for (`X-Forwarded-Email`); always `admin`. */
export interface ProxyPrincipal {
  kind: 'proxy'
  scope: 'admin'
  email: string
}

/** Auth is on and the caller showed no valid credentials (only open endpoints get this far). */
export interface AnonymousPrincipal {
  kind: 'anonymous'
  scope: null
}

/** Auth is off (`SVC_AUTH_ENABLED=0`, a trusted LAN): everyone may do everything. */
export interface AuthOffPrincipal {
  kind: 'auth-off'
  scope: 'admin'
}

/** Who is calling, as decided by the API's auth middleware. Plain data: no credential in it. */
export type Principal = TokenPrincipal | ProxyPrincipal | AnonymousPrincipal | AuthOffPrincipal

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous', scope: null })
export const AUTH_OFF: AuthOffPrincipal = Object.freeze({ kind: 'auth-off', scope: 'admin' })
