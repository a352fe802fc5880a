/**
 * The settings of the edge every svc server shares (the API and the chat server read the same
 * variables the same way): whose forwarded identity counts, the proxy's secret, and the host names
 * served. Each program's environment reader passes its own `read`, so only names its table declares
 * are read.
 */
import { type AddressMatcher, parseAddressList } from './client-address'
import { type AllowedHosts, allowedHostsFrom } from './host-allow'

/** The variables `readEdgeEnv` reads. */
export type EdgeVariable = 'SVC_TRUSTED_PROXIES' | 'SVC_PROXY_SECRET' | 'SVC_ALLOWED_HOSTS' | 'SVC_HOSTNAME'

export interface EdgeEnv {
  /** `SVC_TRUSTED_PROXIES` (IPs/CIDRs; default 127.0.0.1 and ::1): whose forwarded identity counts. */
  trustedProxies: AddressMatcher
  /** `SVC_PROXY_SECRET`: when set, a forwarded identity also needs `X-Svc-Proxy-Secret` with it. */
  proxySecret: string | undefined
  /** `SVC_ALLOWED_HOSTS` and `SVC_HOSTNAME`: host names served beyond loopback and the machine's own. */
  allowedHosts: AllowedHosts
}

/** Parses the edge variables; throws an Error whose message is fit for a person on a bad value. */
export function readEdgeEnv(read: (name: EdgeVariable) => string | undefined): EdgeEnv {
  const trusted = parseAddressList(read('SVC_TRUSTED_PROXIES'))
  if (!trusted.ok) throw new Error(trusted.error)
  const hosts = allowedHostsFrom({ allowedHosts: read('SVC_ALLOWED_HOSTS'), hostname: read('SVC_HOSTNAME') })
  if (!hosts.ok) throw new Error(hosts.error)
  return {
    trustedProxies: trusted.matcher,
    proxySecret: read('SVC_PROXY_SECRET') || undefined,
    allowedHosts: hosts.hosts,
  }
}
