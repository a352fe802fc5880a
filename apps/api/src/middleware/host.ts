/**
 * The browser rules the raw request listener applies before anything else (docs/auth.md "Hosts
 * and origins"): the host rule on every request, and, with auth off, no hosted upstream for a page
 * of another site. Both read headers of Node's raw request: no Hono, no body.
 */
import type { IncomingMessage } from 'node:http'
import { type HostRule, isCrossSite, PROXY_SECRET_HEADER, type ProxyTrust } from '@svc/auth'
import { SvcError } from '@svc/core'

function header(req: IncomingMessage) {
  return (name: string): string | undefined => {
    const value = req.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
}

/**
 * The host rule for the request listener: undefined lets the request through, else the 403
 * `host.forbidden`. The reverse proxy vouches for its own site name only when a proxy secret is set
 * (a trusted address alone may be a local browser that a rebound name points at).
 */
export function hostGuard(rule: HostRule, proxy: { trusts: ProxyTrust; secretSet: boolean }) {
  return function checkHost(req: IncomingMessage): SvcError | undefined {
    const host = req.headers.host
    if (rule.knows(host)) return undefined
    const peer = req.socket.remoteAddress
    const viaProxy = proxy.secretSet ? () => proxy.trusts(peer, header(req)(PROXY_SECRET_HEADER)) : undefined
    return rule.allows({ host, peer, ...(viaProxy ? { viaProxy } : {}) }) ? undefined : rule.refusal(host)
  }
}

/**
 * With auth off, a page of another site (foreign `Origin`, `Sec-Fetch-Site` not same-origin) may use
 * svc's own models through `/v1` (CORS), but never a hosted upstream: that would spend the
 * operator's API key for any site the user visits. Asked by the dispatcher once `model` resolved to one.
 */
export function refuseHostedFromOtherSites(req: IncomingMessage): SvcError | undefined {
  if (!isCrossSite(header(req))) return undefined
  return new SvcError(
    'auth.forbidden',
    "this request comes from a page of another site and its model is a hosted upstream: with auth off, other sites may use svc's own models only, never the operator's hosted API keys; send a bearer token with auth on",
    { param: 'model' },
  )
}
