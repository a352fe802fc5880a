/**
 * The host rule (docs/auth.md "Hosts and origins"): a request's `Host` must be a name svc answers
 * to, or it is refused before anything else runs. Without it, DNS rebinding turns any web page into
 * a same-origin page of svc: `evil.test` first resolves to the attacker, then to this box, and the
 * browser sends the page's requests here with `Host: evil.test` — passing every same-site check,
 * and with auth off (the default) reading `/api/*` and minting admin tokens.
 *
 * Names svc answers to:
 * - loopback: `localhost`, `*.localhost` (browsers resolve those themselves), `127.0.0.0/8`, `[::1]`,
 *   and the unspecified `0.0.0.0` / `[::]` (svc's own log prints them; no DNS name can be rebound to
 *   become them);
 * - the machine's own names and addresses (`machine`: host name, `<host>.local`, interface addresses),
 *   gathered by the app; asked again at most every `refreshMs` when an unknown host arrives, so a new
 *   DHCP lease or a network that came up later needs no restart;
 * - `allowed`: `SVC_HOSTNAME` and `SVC_ALLOWED_HOSTS` entries (see `parseAllowedHosts`).
 *
 * The port is ignored (svc may sit behind a proxy on another port). No `Host` at all (HTTP/1.0) is
 * taken from loopback peers only. A request vouched for by the reverse proxy (the caller's `viaProxy`:
 * trusted address and proxy secret) passes with any host: the proxy chose it by its site name.
 *
 * Hot path: a hit is one `Set` lookup on the raw header value; only a miss parses it.
 */
import { networkInterfaces, hostname as osHostname } from 'node:os'
import { SvcError } from '@svc/core'
import { isLoopbackHost, normalizeAddress } from './client-address'

/** `SVC_ALLOWED_HOSTS` parsed: `any` (`*`, the check is off), exact names and `.suffix` entries. */
export interface AllowedHosts {
  any: boolean
  names: readonly string[]
  /** `.example.com`: example.com and every name under it. Stored with the leading dot. */
  suffixes: readonly string[]
}

export type AllowedHostsResult = { ok: true; hosts: AllowedHosts } | { ok: false; error: string }

export const ALLOWED_HOSTS_VARIABLE = 'SVC_ALLOWED_HOSTS'

const LABELS = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/
const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/
/** Raw header values remembered as accepted (names, not peers): bounds memory under random hosts. */
const MAX_REMEMBERED = 256

/**
 * Parses a comma-separated host list (`SVC_ALLOWED_HOSTS`): names (`llm.example.com`), addresses
 * (`10.0.0.5`, `[fd00::5]` or `fd00::5`), `.example.com` (that name and every name under it), or `*`
 * alone (any host: the check is off). A port on an entry is ignored; case and a trailing dot too.
 * Unset or blank: no extra names. A bad entry is an error value naming it.
 */
export function parseAllowedHosts(
  text: string | undefined,
  variable = ALLOWED_HOSTS_VARIABLE,
): AllowedHostsResult {
  const entries = (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  if (entries.includes('*')) {
    if (entries.length > 1) return { ok: false, error: `${variable}: "*" (any host) stands alone` }
    return { ok: true, hosts: { any: true, names: [], suffixes: [] } }
  }
  const names: string[] = []
  const suffixes: string[] = []
  for (const entry of entries) {
    const suffix = entry.startsWith('.')
    const host = hostnameOf(suffix ? entry.slice(1) : entry)
    if (!host || (suffix && host.startsWith('['))) {
      return {
        ok: false,
        error: `${variable}: "${entry}" is not a host name, an address or a .suffix (e.g. llm.example.com, 10.0.0.5, .example.com)`,
      }
    }
    if (suffix) suffixes.push(`.${host}`)
    else names.push(host)
  }
  return { ok: true, hosts: { any: false, names, suffixes } }
}

/**
 * The host part of a `Host` header (or an entry), canonical: lower case, no port, no trailing dot,
 * IPv6 in brackets and compressed, IPv4 in dotted decimal. Undefined when it is not a host.
 */
export function hostnameOf(value: string): string | undefined {
  let h = value.trim().toLowerCase()
  if (h.startsWith('[') || (h.includes(':') && h.indexOf(':') !== h.lastIndexOf(':'))) {
    const bracketed = h.startsWith('[') ? h : `[${h}]`
    const end = bracketed.indexOf(']')
    const rest = bracketed.slice(end + 1)
    if (end < 0 || !/^(?::\d{1,5})?$/.test(rest)) return undefined
    try {
      return new URL(`http://${bracketed.slice(0, end + 1)}/`).hostname
    } catch {
      return undefined
    }
  }
  const colon = h.indexOf(':')
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(h.slice(colon + 1))) return undefined
    h = h.slice(0, colon)
  }
  if (h.endsWith('.')) h = h.slice(0, -1)
  if (h === '' || h.length > 253 || !LABELS.test(h)) return undefined
  if (!/[a-z_-]/.test(h) && !IPV4.test(h)) {
    // All digits and dots but not dotted-quad (`2130706433`, `127.1`): the URL parser's reading.
    try {
      return new URL(`http://${h}/`).hostname
    } catch {
      return undefined
    }
  }
  return h
}

/** Whether a canonical host (from `hostnameOf`) is a loopback or unspecified name. */
export function isLoopbackName(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    LOOPBACK_V4.test(host) ||
    host === '[::1]' ||
    host === '0.0.0.0' ||
    host === '[::]'
  )
}

/** The machine's own names and addresses, as `hostnameOf` writes them (brackets on IPv6). */
export function machineHostnames(input: { hostname: string; addresses: readonly string[] }): string[] {
  const out = new Set<string>()
  const name = hostnameOf(input.hostname)
  if (name) {
    out.add(name)
    const short = name.split('.')[0]!
    out.add(short)
    out.add(`${short}.local`)
  }
  for (const address of input.addresses) {
    const a = normalizeAddress(address)
    const host = hostnameOf(a.includes(':') ? `[${a}]` : a)
    if (host) out.add(host)
  }
  return [...out]
}

/**
 * The allowed list from the two variables' values: `SVC_ALLOWED_HOSTS` and `SVC_HOSTNAME` (the name
 * the installer gave the reverse proxy; one name). Plain values in: the app reads the environment.
 */
export function allowedHostsFrom(values: {
  allowedHosts: string | undefined
  hostname: string | undefined
}): AllowedHostsResult {
  const list = parseAllowedHosts(values.allowedHosts)
  if (!list.ok || list.hosts.any || !values.hostname?.trim()) return list
  const name = hostnameOf(values.hostname)
  if (!name)
    return { ok: false, error: `SVC_HOSTNAME "${values.hostname}" is not a host name (e.g. llm.local)` }
  return { ok: true, hosts: { ...list.hosts, names: [...list.hosts.names, name] } }
}

/** `machineHostnames` of this machine now: `os.hostname()` and every interface address. */
export function thisMachineHostnames(): string[] {
  let addresses: string[] = []
  try {
    addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address))
  } catch {
    // Some sandboxes refuse to list interfaces: the names (and loopback) still hold.
  }
  return machineHostnames({ hostname: osHostname(), addresses })
}

export interface HostRuleOptions {
  /** `SVC_ALLOWED_HOSTS` parsed; `SVC_HOSTNAME` belongs in its `names`. */
  allowed: AllowedHosts
  /** This machine's names and addresses (`machineHostnames`), asked at start and again on a miss. */
  machine?: () => readonly string[]
  /** Least time between two `machine()` calls on misses (ms). Default 10 s. */
  refreshMs?: number
  now?: () => number
}

export interface HostRequest {
  /** The `Host` header, as sent. */
  host: string | undefined
  /** The socket's peer address. */
  peer: string | undefined
  /** Whether the reverse proxy vouches for the request (trusted address and proxy secret). Asked on a miss. */
  viaProxy?: () => boolean
}

export interface HostRule {
  /** The hot path's first look: a `Host` value already accepted (no parsing, no allocation). */
  knows(host: string | undefined): boolean
  /** Whether svc answers to this request's host. */
  allows(request: HostRequest): boolean
  /** The 403 `host.forbidden` for a refused request, saying how to add the name. */
  refusal(host: string | undefined): SvcError
}

export function createHostRule(options: HostRuleOptions): HostRule {
  const { allowed } = options
  const now = options.now ?? Date.now
  const refreshMs = options.refreshMs ?? 10_000
  const remembered = new Set<string>()
  let machine = new Set(options.machine?.() ?? [])
  let askedAt = now()
  const names = new Set(allowed.names)

  function known(host: string): boolean {
    if (names.has(host) || machine.has(host) || isLoopbackName(host)) return true
    for (const suffix of allowed.suffixes) if (host === suffix.slice(1) || host.endsWith(suffix)) return true
    return false
  }

  function knownAfterRefresh(host: string): boolean {
    if (!options.machine || now() - askedAt < refreshMs) return false
    askedAt = now()
    machine = new Set(options.machine())
    return machine.has(host)
  }

  return {
    knows: (host) => allowed.any || (host !== undefined && remembered.has(host)),
    allows(request) {
      if (allowed.any) return true
      const raw = request.host
      // HTTP/1.0 may omit Host: a local script, never a browser page (browsers always send it).
      if (raw === undefined || raw === '') return request.peer !== undefined && isLoopbackHost(request.peer)
      if (remembered.has(raw)) return true
      const host = hostnameOf(raw)
      if (host !== undefined && (known(host) || knownAfterRefresh(host))) {
        if (remembered.size >= MAX_REMEMBERED) remembered.clear()
        remembered.add(raw)
        return true
      }
      return request.viaProxy?.() === true
    },
    refusal(host) {
      const shown = host === undefined || host === '' ? undefined : hostnameOf(host)
      const what =
        host === undefined || host === ''
          ? 'a request without a Host header'
          : `host "${shown ?? host.slice(0, 64)}"`
      const how = shown
        ? `add it to SVC_ALLOWED_HOSTS in this server's environment (e.g. SVC_ALLOWED_HOSTS=${shown}; comma-separated, ".example.com" for a whole domain) and restart`
        : 'send the Host header, or connect from this machine'
      return new SvcError(
        'host.forbidden',
        `svc does not answer to ${what}: it answers to loopback names, this machine's names and addresses, SVC_HOSTNAME and SVC_ALLOWED_HOSTS (a web page on an unknown name may be DNS rebinding). To use this name, ${how}`,
      )
    },
  }
}
