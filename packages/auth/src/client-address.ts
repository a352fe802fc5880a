/**
 * Client addresses: which peers are trusted proxies (`SVC_TRUSTED_PROXIES`) and how a client is
 * keyed for throttling. Addresses come from the socket, so they are well formed; lists come from
 * the environment and are validated (a bad entry is an error value naming it).
 */
import { BlockList, isIP } from 'node:net'

/** Trusted by default: the loopback addresses a local reverse proxy connects from. */
export const DEFAULT_TRUSTED_PROXIES: readonly string[] = ['127.0.0.1', '::1']

export interface AddressMatcher {
  /** Whether `address` is in the list; `undefined` (no socket) never is. */
  matches(address: string | undefined): boolean
  /** The entries as given, normalised (for log lines). */
  readonly entries: readonly string[]
}

export type AddressListResult = { ok: true; matcher: AddressMatcher } | { ok: false; error: string }

/**
 * Parses a comma-separated list of IPs and CIDRs (`127.0.0.1, 10.0.0.0/8, fd00::/8`). Unset or
 * blank means `DEFAULT_TRUSTED_PROXIES`; `none` means no proxy is trusted (tokens only).
 */
export function parseAddressList(text: string | undefined, name = 'SVC_TRUSTED_PROXIES'): AddressListResult {
  if (text === undefined || text.trim() === '')
    return { ok: true, matcher: buildMatcher(DEFAULT_TRUSTED_PROXIES) }
  if (text.trim().toLowerCase() === 'none') return { ok: true, matcher: buildMatcher([]) }
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  for (const entry of entries) {
    if (!parseEntry(entry)) {
      return { ok: false, error: `${name}: "${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8)` }
    }
  }
  return { ok: true, matcher: buildMatcher(entries) }
}

/** A matcher over entries known to be valid (throws on an invalid one; use `parseAddressList` for input). */
export function createAddressMatcher(entries: readonly string[] = DEFAULT_TRUSTED_PROXIES): AddressMatcher {
  for (const entry of entries) if (!parseEntry(entry)) throw new Error(`not an IP address or CIDR: ${entry}`)
  return buildMatcher(entries)
}

function buildMatcher(entries: readonly string[]): AddressMatcher {
  const list = new BlockList()
  const normalised: string[] = []
  for (const entry of entries) {
    const parsed = parseEntry(entry)!
    if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family)
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family)
    normalised.push(parsed.prefix === undefined ? parsed.address : `${parsed.address}/${parsed.prefix}`)
  }
  return {
    entries: normalised,
    matches(address) {
      if (!address) return false
      const a = normalizeAddress(address)
      const family = isIP(a)
      if (family === 0) return false
      return list.check(a, family === 4 ? 'ipv4' : 'ipv6')
    },
  }
}

function parseEntry(
  entry: string,
): { address: string; prefix: number | undefined; family: 'ipv4' | 'ipv6' } | undefined {
  const [rawAddress, rawPrefix, extra] = entry.split('/')
  if (rawAddress === undefined || extra !== undefined) return undefined
  const address = normalizeAddress(rawAddress)
  const family = isIP(address)
  if (family === 0) return undefined
  const max = family === 4 ? 32 : 128
  let prefix: number | undefined
  if (rawPrefix !== undefined) {
    if (!/^\d{1,3}$/.test(rawPrefix)) return undefined
    prefix = Number(rawPrefix)
    if (prefix > max) return undefined
  }
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' }
}

/** Lower-case, without a zone id, and an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as IPv4. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase().replace(/%.*$/, '')
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)
  return mapped ? mapped[1]! : a
}

/**
 * The throttling key of a client: its IPv4 address, or the /64 prefix of its IPv6 address (one host
 * usually holds a whole /64). No address (an in-process request) is the key `unknown`.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown'
  const a = normalizeAddress(address)
  if (isIP(a) !== 6) return a
  return `${ipv6Groups(a).slice(0, 4).join(':')}::/64`
}

function ipv6Groups(a: string): string[] {
  let s = a
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number) as [number, number, number, number]
    s = `${s.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`
  }
  const [head = '', tail] = s.split('::')
  const left = head === '' ? [] : head.split(':')
  if (tail === undefined) return left.map((g) => g.padStart(4, '0'))
  const right = tail === '' ? [] : tail.split(':')
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => '0')
  return [...left, ...zeros, ...right].map((g) => g.padStart(4, '0'))
}

/** Whether a listen host is loopback-only (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeAddress(host.replace(/^\[|\]$/g, ''))
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}
