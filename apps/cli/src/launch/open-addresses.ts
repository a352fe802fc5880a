/**
 * The addresses a person opens for a server, from the address it bound (its "listening" log line):
 * a server listening on every interface (`0.0.0.0`, `::`) is opened at `http://localhost:<port>/` on
 * this machine and at the machine's LAN addresses from others; one on loopback only at localhost.
 */
import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os'

/** Where to open a server: on this machine, and from other machines (empty: not reachable from them). */
export interface OpenAddresses {
  /** `http://localhost:8080/`-like, with the trailing slash a browser shows. */
  here: string
  /** `http://192.168.1.20:8080/`-like, one per LAN address; empty unless the server listens on them. */
  lan: string[]
  /** Whether only this machine reaches the server (it bound loopback). */
  localOnly: boolean
}

export interface OpenAddressesOptions {
  /** How this machine names itself for a loopback or wildcard bind. Default `localhost`. */
  loopbackName?: string
  /** `os.networkInterfaces()`'s answer (a test passes its own). */
  interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>
}

const WILDCARD = new Set(['0.0.0.0', '[::]', '::'])
const LOOPBACK = /^(127\.|\[::1\]$|localhost$)/
/** Interfaces of containers and VMs on this machine: no other machine reaches svc through them. */
const VIRTUAL = /^(docker|br-|veth|virbr|cni|flannel|podman|lxc)/

/**
 * What to open for a server that bound `url` (`http://0.0.0.0:8080`, `http://127.0.0.1:3001`, …).
 * A wildcard bind also lists each non-internal IPv4 address of a physical interface (link-local
 * 169.254.x.x and container/VM bridges left out); a specific non-loopback address is shown as is.
 * A `url` that does not parse is returned as `here`, unchanged.
 */
export function openAddresses(url: string, options: OpenAddressesOptions = {}): OpenAddresses {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { here: url, lan: [], localOnly: false }
  }
  const at = (host: string) => `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ''}/`
  const name = options.loopbackName ?? 'localhost'
  if (LOOPBACK.test(parsed.hostname)) return { here: at(name), lan: [], localOnly: true }
  if (!WILDCARD.has(parsed.hostname)) return { here: at(parsed.hostname), lan: [], localOnly: false }
  const lan = lanAddresses(options.interfaces ?? networkInterfaces()).map(at)
  return { here: at(name), lan, localOnly: false }
}

/** The machine's LAN IPv4 addresses, in interface order, without duplicates. */
export function lanAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const out = new Set<string>()
  for (const [name, infos] of Object.entries(interfaces)) {
    if (VIRTUAL.test(name)) continue
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal || info.address.startsWith('169.254.')) continue
      out.add(info.address)
    }
  }
  return [...out]
}
