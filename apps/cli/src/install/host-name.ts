import { isIPv4 } from 'node:net'
import { networkInterfaces, hostname as osHostname } from 'node:os'

/** How the proxy gets its certificate: Caddy's own CA, or a public CA over ACME. */
export type TlsMode = 'internal' | 'acme'

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** `<this machine's short host name>.local`, the name mDNS (avahi) already answers for. */
export function defaultHostname(system = osHostname()): string {
  const short = system.split('.')[0]?.toLowerCase() ?? ''
  return `${LABEL.test(short) ? short : 'svc'}.local`
}

/**
 * A host name the proxy may serve: lower-case DNS labels (or an IPv4 address), nothing that could
 * change the meaning of the Caddyfile it is written into. Returns the normalised name or an error.
 */
export function checkHostname(name: string): { ok: true; name: string } | { ok: false; error: string } {
  const n = name.trim().toLowerCase().replace(/\.$/, '')
  if (isIPv4(n)) return { ok: true, name: n }
  if (n.length > 253 || !n.split('.').every((l) => LABEL.test(l)) || /^\d+$/.test(n.split('.').at(-1)!)) {
    return {
      ok: false,
      error: `SVC_HOSTNAME "${name}" is not a host name (letters, digits, hyphens and dots, e.g. llm.local or llm.example.com)`,
    }
  }
  return { ok: true, name: n }
}

/** Suffixes that no public CA will certify: such names get Caddy's internal CA. */
const PRIVATE_SUFFIXES = ['.local', '.localhost', '.internal', '.lan', '.home.arpa', '.test']

/**
 * `internal` for names only this network knows (`.local`, `.lan`, `.home.arpa`, a single label, an
 * IP address, localhost), `acme` for everything else (a public DNS name: Let's Encrypt / ZeroSSL).
 */
export function tlsModeFor(name: string): TlsMode {
  if (isIPv4(name) || !name.includes('.') || name === 'localhost') return 'internal'
  return PRIVATE_SUFFIXES.some((s) => name.endsWith(s)) ? 'internal' : 'acme'
}

/** This machine's first non-loopback IPv4 address (for the hosts-file line clients need), if any. */
export function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  }
  return undefined
}

/** True when avahi (mDNS) answers for `name` by itself: it is this machine's own `<host>.local`. */
export function mdnsCoversName(name: string, system = osHostname()): boolean {
  return name === defaultHostname(system)
}
