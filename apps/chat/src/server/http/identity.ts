import { getConnInfo } from '@hono/node-server/conninfo'
import { PROXY_SECRET_HEADER, type ProxyTrust } from '@svc/auth'
import { SvcError } from '@svc/core'
import type { Context, MiddlewareHandler } from 'hono'
import type { ChatStore } from '../store/chat-store'
import type { User } from '../store/types'

declare module 'hono' {
  interface ContextVariableMap {
    /** The person this request is for; set by the identity middleware. */
    user: User
  }
}

/** The one user everybody is when no trusted header is configured (auth off). */
export const LOCAL_IDENTITY = 'local'

/** Longest identity taken (an email address is at most 254 characters). */
const MAX_IDENTITY = 254

export interface IdentityOptions {
  /** Lower-case header name (`x-forwarded-email`), or undefined for auth off. */
  trustedHeader: string | undefined
  /** Whether the peer is our proxy (trusted address and, when configured, the proxy secret). */
  fromProxy: ProxyTrust
  store: ChatStore
}

/**
 * Who the request is for, on every request (never remembered in a session: a change at the proxy
 * applies at once).
 *
 * - No trusted header configured: everyone is the single local user; a forwarded header is ignored.
 * - A trusted header configured: it counts only from the proxy (same rule as the API: trusted peer
 *   address and, when `SVC_PROXY_SECRET` is set, `X-Svc-Proxy-Secret`). A missing, empty or
 *   untrusted header is 401 `auth.required`, never the local user. The person's record is created on
 *   the first visit.
 */
export function identityMiddleware(options: IdentityOptions): MiddlewareHandler {
  return async function identify(c, next) {
    const identity = options.trustedHeader ? forwarded(c, options) : LOCAL_IDENTITY
    if (!identity) {
      throw new SvcError(
        'auth.required',
        'sign in through the reverse proxy: this chat app trusts only the identity the proxy forwards',
      )
    }
    c.set('user', options.store.users.ensure(identity))
    await next()
  }
}

function forwarded(c: Context, options: IdentityOptions): string | undefined {
  const value = c.req.header(options.trustedHeader!)?.trim()
  if (!value || value.length > MAX_IDENTITY || /\p{C}/u.test(value)) return undefined
  return options.fromProxy(peerAddress(c), c.req.header(PROXY_SECRET_HEADER)) ? value : undefined
}

/** The socket's peer; undefined for in-process requests (tests' `app.request`), which are never the proxy. */
export function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address
  } catch {
    return undefined
  }
}
