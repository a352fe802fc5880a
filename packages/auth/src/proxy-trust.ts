import { createHash, timingSafeEqual } from 'node:crypto'
import { type AddressMatcher, createAddressMatcher } from './client-address'

/** The header that carries the proxy's shared secret (`SVC_PROXY_SECRET`). */
export const PROXY_SECRET_HEADER = 'x-svc-proxy-secret'

export interface ProxyTrustOptions {
  /** Peers that may vouch for a person (`SVC_TRUSTED_PROXIES`). Default 127.0.0.1 and ::1. */
  trustedProxies?: AddressMatcher
  /** `SVC_PROXY_SECRET`: when set, the peer must also show it in `X-Svc-Proxy-Secret`. */
  proxySecret?: string
}

/**
 * Whether a request comes from our reverse proxy: its socket peer is a trusted address and, when a
 * proxy secret is configured, it carries that secret (compared in constant time). The API and the chat
 * app both decide "is this forwarded identity believable" with this one function, so their rules agree.
 */
export type ProxyTrust = (peer: string | undefined, secretHeader: string | undefined) => boolean

/** Builds the {@link ProxyTrust} check; pure apart from hashing. */
export function createProxyTrust(options: ProxyTrustOptions = {}): ProxyTrust {
  const trusted = options.trustedProxies ?? createAddressMatcher()
  const secretDigest = options.proxySecret ? sha256(options.proxySecret) : undefined
  return function fromProxy(peer, secretHeader) {
    if (!trusted.matches(peer)) return false
    if (!secretDigest) return true
    return secretHeader !== undefined && timingSafeEqual(sha256(secretHeader), secretDigest)
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
