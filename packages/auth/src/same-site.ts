/**
 * The same-site rule (docs/auth.md "Hosts and origins"), one for the API and the chat server: a
 * request carried by credentials the browser attaches on its own — the proxy's basic auth turned
 * into the forwarded identity, or nothing at all on a LAN box with auth off — must come from a page
 * of the same origin. Otherwise any site the user visits could POST `/api/slots/primary/unload`
 * with a form.
 *
 * Decided per request, from headers browsers set and pages cannot forge:
 * - `Sec-Fetch-Site` (any case, trimmed): `same-origin` and `none` (the user typed it) pass;
 *   `same-site`, `cross-site` and anything else do not (another port or subdomain is another origin).
 * - No `Sec-Fetch-Site` (older browsers): an `Origin` must name this server: its host and port (a
 *   scheme's default port may be written or not) must be the `Host` the client asked for, or, for a
 *   request the reverse proxy vouches for, one of its `X-Forwarded-Host` values. `Origin: null`
 *   (sandboxed frames, `file:`) and garbage fail.
 * - Neither header: not a browser (curl, the CLI, an SDK), which carries nothing implicitly: passes.
 *
 * The host rule (`host-allow.ts`) runs first: without it a DNS-rebound page would be same-origin.
 */
import { SvcError } from '@svc/core'

/** A request header by lower-case name. */
export type HeaderLookup = (name: string) => string | undefined

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether the request comes from a page of another site or origin. `viaProxy` says whether the
 * reverse proxy vouches for the request (then its `X-Forwarded-Host` names this server too); it is
 * asked only when an `Origin` has to be compared.
 */
export function isCrossSite(header: HeaderLookup, viaProxy?: () => boolean): boolean {
  const site = header('sec-fetch-site')?.trim().toLowerCase()
  if (site !== undefined && site !== '') return site !== 'same-origin' && site !== 'none'
  const origin = header('origin')?.trim()
  if (origin === undefined || origin === '') return false
  let host: string
  try {
    const url = new URL(origin)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return true
    host = url.host.toLowerCase() // the URL parser already drops the scheme's default port
  } catch {
    return true // "null" and garbage
  }
  if (sameHost(header('host'), host)) return false
  const forwarded = header('x-forwarded-host')
  if (!forwarded || !viaProxy?.()) return true
  return !forwarded.split(',').some((h) => sameHost(h, host))
}

/**
 * The refusal for a request from another site, or undefined. Reads (GET, HEAD, OPTIONS) pass unless
 * `reads` is set (auth off on `/api/*`, where a foreign page must not reach anything at all).
 */
export function crossSiteRefusal(
  method: string,
  header: HeaderLookup,
  options: { viaProxy?: () => boolean; reads?: boolean } = {},
): SvcError | undefined {
  if (!options.reads && SAFE_METHODS.has(method.toUpperCase())) return undefined
  if (!isCrossSite(header, options.viaProxy)) return undefined
  return new SvcError(
    'auth.forbidden',
    options.reads
      ? 'this request comes from a page of another site: with auth off, only svc’s own pages (same origin) may use it; programs send no Origin or use a bearer token'
      : 'this request changes something and comes from another site: browsers may send it only from a page of svc itself (same origin); programs should use a bearer token',
  )
}

/** `Host`-style `a` (maybe with a default port) against an origin's `host` (default port dropped). */
function sameHost(a: string | undefined, originHost: string): boolean {
  if (!a) return false
  const h = a.trim().toLowerCase()
  return h === originHost || h.replace(/:(80|443)$/, '') === originHost
}
