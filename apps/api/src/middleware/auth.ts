import type { IncomingMessage, ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import { getConnInfo } from '@hono/node-server/conninfo'
import {
  type AddressMatcher,
  ANONYMOUS,
  AUTH_OFF,
  allows,
  classify,
  clientKey,
  createProxyTrust,
  crossSiteRefusal,
  isOpen,
  PROXY_SECRET_HEADER,
  type Principal,
  type TokenStore,
  type TokenVerifier,
  type VerifyResult,
} from '@svc/auth'
import { SvcError } from '@svc/core'
import { requestPath, writeError } from '@svc/dispatcher'
import type { Context, MiddlewareHandler } from 'hono'
import { noteAllowedModels } from './token-models'

declare module 'hono' {
  interface ContextVariableMap {
    /** Who is calling; set by the auth middleware on every request that gets past it. */
    principal: Principal
  }
}

/** What the app needs for authentication (built by wiring.ts from the environment). */
export interface AuthDeps {
  /** `SVC_AUTH_ENABLED`. Off: every request passes as `auth-off` (admin). */
  enabled: boolean
  /** tokens.toml; absent → token management answers 404. */
  store?: TokenStore
  /** Bearer verification; absent → every bearer token is invalid. */
  verifier?: TokenVerifier
  /** Peers whose `X-Forwarded-Email` is trusted (`SVC_TRUSTED_PROXIES`). Default 127.0.0.1 and ::1. */
  trustedProxies?: AddressMatcher
  /** `SVC_PROXY_SECRET`: when set, a forwarded identity also needs `X-Svc-Proxy-Secret` with this value. */
  proxySecret?: string
}

/** A request as authentication sees it, from Hono or from Node's raw request alike. */
export interface AuthRequest {
  method: string
  /** The path as the router matches it (no query). */
  path: string
  /** A header by lower-case name. */
  header(name: string): string | undefined
  /** The socket's peer address, when there is a socket. */
  peer(): string | undefined
}

export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; error: SvcError }
export type Authenticate = (req: AuthRequest) => AuthOutcome | Promise<AuthOutcome>

/** Longest forwarded identity taken (an email address is at most 254 characters). */
const MAX_IDENTITY = 254
const PASS_OFF: AuthOutcome = { ok: true, principal: AUTH_OFF }
const PASS_ANONYMOUS: AuthOutcome = { ok: true, principal: ANONYMOUS }

/**
 * Authentication and scope checks (docs/auth.md#tokens-and-scopes), framework-neutral.
 *
 * - Open endpoints pass; credentials shown there are still checked so that `principal` says who
 *   called, but a bad one never fails an open request.
 * - Only `Authorization: Bearer <token>` (exactly that spelling: one space, capital B) is a token. A
 *   header whose scheme (the text before the first space or tab) is any other case of "bearer" is a
 *   malformed token (401 `auth.invalid`, even next to a trusted forwarded identity); any other scheme
 *   (the browser's `Basic …` forwarded by the proxy) counts as no token.
 * - A bearer token wins over `X-Forwarded-Email`; an invalid one is 401 even with a valid email.
 * - On `/v1/*` a token may come as `x-api-key: <token>` instead (what Anthropic's SDKs send); it
 *   counts exactly like a bearer token, and `Authorization: Bearer` wins when both are sent. Not on
 *   `/api/*`: the management API keeps one way in.
 * - `X-Forwarded-Email` counts only from a trusted proxy address and, when a proxy secret is set,
 *   with a matching `X-Svc-Proxy-Secret` (constant-time comparison). It is `admin`.
 * - No credentials → 401 `auth.required` with `WWW-Authenticate: Bearer`; a scope that does not
 *   cover the route class → 403 `auth.forbidden`; too many failures from one client → 429
 *   `auth.throttled` with `Retry-After` (clients behind a trusted proxy are keyed by the address the
 *   proxy appended to `X-Forwarded-For`).
 *
 * - Same-site rule (@svc/auth `same-site.ts`): a forwarded identity that changes anything must come
 *   from a page of svc's own origin (403 `auth.forbidden` otherwise). With auth off, a page of another
 *   site may not reach `/api/*` at all, reads included (only `GET /api/images/cache/*`, `/v1` results,
 *   stays open), nor change anything elsewhere but `/v1/*` (which other origins may call: CORS; a
 *   hosted upstream is refused to them by the dispatcher's `refuseHosted`). Bearer tokens are
 *   exempt: browsers never attach them by themselves.
 *
 * Synchronous for a cached bearer token (the hot path), a promise otherwise. Node's HTTP parser
 * answers some malformed requests before any of this runs (headers over 16 KiB: 431; control
 * characters in a header: 400); neither is a 500.
 */
export function createAuthenticator(auth: AuthDeps): Authenticate {
  const trusts = createProxyTrust({ trustedProxies: auth.trustedProxies, proxySecret: auth.proxySecret })

  /** The peer is our proxy: a trusted address and, when configured, the right shared secret. */
  function fromProxy(req: AuthRequest, peer: string | undefined): boolean {
    return trusts(peer, req.header(PROXY_SECRET_HEADER))
  }

  function throttleKey(req: AuthRequest): string {
    const peer = req.peer()
    if (fromProxy(req, peer)) {
      const last = req.header('x-forwarded-for')?.split(',').at(-1)?.trim()
      if (last && isIP(last)) return clientKey(last)
    }
    return clientKey(peer)
  }

  function forwarded(req: AuthRequest): Principal | undefined {
    const email = req.header('x-forwarded-email')?.trim()
    if (!email || email.length > MAX_IDENTITY || /\p{C}/u.test(email)) return undefined
    return fromProxy(req, req.peer()) ? { kind: 'proxy', scope: 'admin', email } : undefined
  }

  function decide(routeClass: ReturnType<typeof classify>, principal: Principal | undefined): AuthOutcome {
    if (isOpen(routeClass)) return principal ? { ok: true, principal } : PASS_ANONYMOUS
    if (!principal) {
      return refuse(
        'auth.required',
        'authentication required: send Authorization: Bearer <token> (svc token create; x-api-key: <token> on /v1), or sign in through the reverse proxy',
        { 'WWW-Authenticate': 'Bearer realm="svc"' },
      )
    }
    if (!allows(principal.scope, routeClass)) {
      return refuse(
        'auth.forbidden',
        `scope "${principal.scope}" does not allow this request (${routeClass}); see the scope table in docs/auth.md#scopes`,
      )
    }
    return { ok: true, principal }
  }

  function afterBearer(
    routeClass: ReturnType<typeof classify>,
    result: VerifyResult,
    expected = 'Authorization: Bearer',
  ): AuthOutcome {
    if (result.ok) return decide(routeClass, result.principal)
    if (isOpen(routeClass)) return PASS_ANONYMOUS
    if (result.code === 'auth.throttled') {
      return refuse('auth.throttled', 'too many failed authentication attempts; retry later', {
        'Retry-After': String(result.retryAfterS),
      })
    }
    return refuse('auth.invalid', `${result.reason}; expected ${expected} svc_<id>.<secret>`, {
      'WWW-Authenticate': 'Bearer realm="svc", error="invalid_token"',
    })
  }

  /** The forwarded identity and auth-off ride credentials the browser sends by itself: same site only. */
  function sameSite(req: AuthRequest, outcome: AuthOutcome): AuthOutcome {
    if (!outcome.ok) return outcome
    const kind = outcome.principal.kind
    if (kind !== 'proxy' && !(kind === 'auth-off' && !isV1(req.path))) return outcome
    const reads = kind === 'auth-off' && isApi(req.path) && classify(req.method, req.path) !== 'image-cache'
    const error = crossSiteRefusal(req.method, req.header, {
      viaProxy: () => fromProxy(req, req.peer()),
      reads,
    })
    return error ? { ok: false, error } : outcome
  }

  return function authenticate(req) {
    if (!auth.enabled) return sameSite(req, PASS_OFF)
    const routeClass = classify(req.method, req.path)
    const header = req.header('authorization')
    if (header) {
      // The scheme is what precedes the first space or tab; any spelling of "bearer" claims a token.
      const exact = header.startsWith('Bearer ')
      if (exact || /^bearer(?:[ \t]|$)/i.test(header)) {
        if (!auth.verifier)
          return afterBearer(routeClass, { ok: false, code: 'auth.invalid', reason: 'no tokens' })
        // A wrong spelling of the scheme goes through as an empty token: refused, and counted.
        const token = exact ? header.slice(7) : ''
        const result = auth.verifier.verify(token, () => throttleKey(req))
        return result instanceof Promise
          ? result.then((r) => afterBearer(routeClass, r))
          : afterBearer(routeClass, result)
      }
    }
    // Anthropic's SDKs send the key as `x-api-key`: read like a bearer token on `/v1` (a bearer
    // token wins when both are sent; the management API takes bearer tokens only).
    const apiKey = isV1(req.path) ? req.header('x-api-key') : undefined
    if (apiKey !== undefined) {
      if (!auth.verifier)
        return afterBearer(routeClass, { ok: false, code: 'auth.invalid', reason: 'no tokens' }, 'x-api-key:')
      const result = auth.verifier.verify(apiKey, () => throttleKey(req))
      return result instanceof Promise
        ? result.then((r) => afterBearer(routeClass, r, 'x-api-key:'))
        : afterBearer(routeClass, result, 'x-api-key:')
    }
    return sameSite(req, decide(routeClass, forwarded(req)))
  }
}

function isV1(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/')
}

/** `/api` and below, in any case (a proxy in front may fold case: never a dashboard file). */
function isApi(path: string): boolean {
  const head = path.slice(0, 5).toLowerCase()
  return head === '/api' || head === '/api/'
}

/** The Hono middleware: sets `principal`, or throws the refusal for the app's error renderer. */
export function authMiddleware(authenticate: Authenticate): MiddlewareHandler {
  return async function authCheck(c, next) {
    const outcome = await authenticate({
      method: c.req.method,
      path: c.req.path,
      header: (name) => c.req.header(name),
      peer: () => peerAddress(c),
    })
    if (!outcome.ok) throw outcome.error
    c.set('principal', outcome.principal)
    await next()
  }
}

/**
 * The same check for the raw inference path (`createHttpHandler`'s `guard`): writes the refusal
 * and answers false, or answers true. `path` is the raw path the dispatcher matched.
 */
export function authGuard(
  authenticate: Authenticate,
  options: {
    /** After auth passed (the quota check): writes its own refusal and answers false, or true. */
    admit?: (principal: Principal, req: IncomingMessage, res: ServerResponse, requestId: string) => boolean
  } = {},
) {
  const { admit } = options
  return function guard(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const outcome = authenticate({
      method: req.method ?? 'GET',
      path: requestPath(req.url),
      header: (name) => {
        const value = req.headers[name]
        return Array.isArray(value) ? value.join(', ') : value
      },
      peer: () => req.socket.remoteAddress,
    })
    const done = (o: AuthOutcome) => {
      if (!o.ok) {
        writeError(res, o.error, requestId)
        return false
      }
      noteAllowedModels(req, o.principal)
      return admit ? admit(o.principal, req, res, requestId) : true
    }
    return outcome instanceof Promise ? outcome.then(done) : done(outcome)
  }
}

function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address
  } catch {
    return undefined // app.request() in tests: no socket, so no trusted peer
  }
}

function refuse(
  code: 'auth.required' | 'auth.invalid' | 'auth.forbidden' | 'auth.throttled',
  message: string,
  headers?: Record<string, string>,
): AuthOutcome {
  return { ok: false, error: new SvcError(code, message, headers ? { headers } : {}) }
}
