import {
  createHostRule,
  crossSiteRefusal,
  type HostRule,
  PROXY_SECRET_HEADER,
  type ProxyTrust,
  thisMachineHostnames,
} from '@svc/auth'
import type { MiddlewareHandler } from 'hono'
import { peerAddress } from './identity'

/**
 * The host rule, before anything else (docs/auth.md "Hosts and origins"): a `Host` the chat server
 * does not answer to is DNS rebinding (a page on `evil.test` that now resolves here would otherwise
 * be same-origin and read every conversation) and gets 403 `host.forbidden`. `proxyVouches` (set only
 * with a proxy secret) lets the reverse proxy's own site name through. The default rule (tests that
 * build the app by hand) knows loopback and this machine's names.
 */
export function hostOnly(
  rule: HostRule | undefined,
  proxyVouches: ProxyTrust | undefined,
): MiddlewareHandler {
  const hosts =
    rule ??
    createHostRule({ allowed: { any: false, names: [], suffixes: [] }, machine: thisMachineHostnames })
  return async function checkHost(c, next) {
    // In-process requests (`app.request`) carry no Host header: their URL names the host.
    const host = c.req.header('host') ?? new URL(c.req.url).host
    const peer = peerAddress(c)
    const viaProxy = proxyVouches ? () => proxyVouches(peer, c.req.header(PROXY_SECRET_HEADER)) : undefined
    if (!hosts.allows({ host, peer, ...(viaProxy ? { viaProxy } : {}) })) throw hosts.refusal(host)
    await next()
  }
}

/**
 * The same-site rule of @svc/auth (the API's too): a change another site's page asks the browser to
 * make (it would attach the proxy's cached basic-auth credentials by itself) is refused. With auth
 * off (`authOff`: no trusted header, everyone is the local user) a page of another site reaches no
 * `/api/*` route at all, reads included. The proxy's `X-Forwarded-Host` names this server only on a
 * request the proxy vouches for (`fromProxy`).
 */
export function sameSiteOnly(options: { fromProxy: ProxyTrust; authOff: boolean }): MiddlewareHandler {
  return async function sameSite(c, next) {
    const error = crossSiteRefusal(c.req.method, (name) => c.req.header(name), {
      viaProxy: () => options.fromProxy(peerAddress(c), c.req.header(PROXY_SECRET_HEADER)),
      reads: options.authOff && c.req.path.startsWith('/api/'),
    })
    if (error) throw error
    await next()
  }
}
