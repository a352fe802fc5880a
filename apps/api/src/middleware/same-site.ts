/**
 * The same-site rule (README "Browsers"): a request that changes something and is carried by
 * credentials the browser attaches on its own — the proxy's basic auth, turned into the forwarded
 * identity, or no credentials at all on a LAN box with auth off — must come from a page of the same
 * origin. Otherwise any site the user visits could POST `/api/slots/primary/unload` with a form.
 *
 * Decided per request, from headers browsers set and pages cannot forge:
 * - `Sec-Fetch-Site`: `same-origin` and `none` (the user typed it) pass; `same-site` and `cross-site` do
 *   not (another port or subdomain is another origin).
 * - No `Sec-Fetch-Site` (older browsers): an `Origin` must name this server — the host the client
 *   asked for (`Host`, or `X-Forwarded-Host` behind the proxy). `Origin: null` fails.
 * - Neither header: not a browser (curl, the CLI, an SDK), which carries nothing implicitly: passes.
 *
 * Reads (GET, HEAD) change nothing and pass; OPTIONS is answered by CORS or refused elsewhere.
 */
import { SvcError } from '@svc/core'

/** The headers the rule reads, by lower-case name. */
export type HeaderLookup = (name: string) => string | undefined

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether the request comes from another site (or an origin that is not this server's). */
export function isCrossSite(header: HeaderLookup): boolean {
  const site = header('sec-fetch-site')?.trim().toLowerCase()
  if (site !== undefined && site !== '') return site !== 'same-origin' && site !== 'none'
  const origin = header('origin')?.trim()
  if (origin === undefined || origin === '') return false
  let host: string
  try {
    host = new URL(origin).host.toLowerCase()
  } catch {
    return true // "null" (sandboxed frames, file:, some redirects) and garbage
  }
  const own = [header('host'), ...(header('x-forwarded-host')?.split(',') ?? [])]
    .map((h) => h?.trim().toLowerCase())
    .filter((h): h is string => !!h)
  return !own.some((h) => h === host || withoutDefaultPort(h) === host)
}

/**
 * The refusal for a request that changes something from another site, or undefined. Callers decide
 * which requests the rule covers (see `createAuthenticator`).
 */
export function crossSiteRefusal(method: string, header: HeaderLookup): SvcError | undefined {
  if (SAFE_METHODS.has(method.toUpperCase())) return undefined
  if (!isCrossSite(header)) return undefined
  return new SvcError(
    'auth.forbidden',
    'this request changes something and comes from another site: browsers may send it only from a page of svc itself (same origin); programs should use a bearer token',
  )
}

function withoutDefaultPort(host: string): string {
  return host.replace(/:(80|443)$/, '')
}
