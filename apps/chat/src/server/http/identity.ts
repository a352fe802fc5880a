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
  /** Whether the chat server calls the API with a token of its own (`SVC_CHAT_API_TOKEN`). */
  tokenBacked: boolean
}

/**
 * Why a chat server with a token and no trusted header serves nobody: the token would otherwise be
 * spent for anyone who can reach it, as the one local user.
 */
export const TOKEN_NEEDS_PROXY =
  'this chat app holds an API token (SVC_CHAT_API_TOKEN), so it serves only people its reverse proxy signs in, and no proxy identity is configured: set SVC_CHAT_TRUSTED_HEADER (e.g. X-Forwarded-Email) and SVC_PROXY_SECRET as the proxy sends them (`svc install --auth=basic` does all of it), or remove SVC_CHAT_API_TOKEN for one local user against an API with auth off'

/**
 * Who the request is for, on every request (never remembered in a session: a change at the proxy
 * applies at once).
 *
 * - No trusted header configured: everyone is the single local user; a forwarded header is ignored.
 *   Unless the server holds an API token: then it answers nobody (401 that says what to configure),
 *   since the token would be spent for whoever reaches it.
 * - A trusted header configured: it counts only from the proxy (same rule as the API: trusted peer
 *   address and, when `SVC_PROXY_SECRET` is set, `X-Svc-Proxy-Secret`). A missing, empty or
 *   untrusted header is 401 `auth.required`, never the local user. The person's record is created on
 *   the first visit.
 */
export function identityMiddleware(options: IdentityOptions): MiddlewareHandler {
  return async function identify(c, next) {
    if (!options.trustedHeader && options.tokenBacked) throw new SvcError('auth.required', TOKEN_NEEDS_PROXY)
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
