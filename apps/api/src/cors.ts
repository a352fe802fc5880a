/**
 * CORS for `/v1/*` only (docs/api.md#cors-browsers): web clients of an OpenAI-compatible server run on
 * their own origin and call `/v1` with a bearer token they hold themselves. `/api/*` answers no CORS
 * headers at all, so no other origin can read the management API.
 *
 * - `SVC_CORS_ORIGINS`: `*` (default) lets any origin read `/v1` answers; a comma-separated list of
 *   origins (`https://app.example,http://localhost:5173`) names the ones that may (echoed back, with
 *   `Vary: Origin`); `none` turns CORS off.
 * - Never `Access-Control-Allow-Credentials`: a browser then never sends cookies or basic-auth
 *   credentials along with a cross-origin `/v1` call, so a page cannot ride the user's login.
 * - Preflight (`OPTIONS` with `Access-Control-Request-Method`): 204 with the allowed methods, the
 *   requested headers echoed back (whatever the client library adds: `authorization`,
 *   `x-stainless-*`, …; harmless without credentials) and `Access-Control-Max-Age: 600`, answered
 *   before authentication (browsers send no credentials on a preflight). An origin that is not
 *   allowed gets the 204 without `Access-Control-Allow-Origin`, which the browser treats as a refusal.
 * - Every answer to an allowed origin, errors included, carries `Access-Control-Allow-Origin` and
 *   exposes `X-Request-Id`, `Retry-After` and `WWW-Authenticate`, so the page can show what went wrong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

export type CorsOrigins = '*' | 'none' | readonly string[]

const METHODS = 'GET, POST, OPTIONS'
const EXPOSE = 'X-Request-Id, Retry-After, WWW-Authenticate'
const MAX_AGE = '600'
/** A header list as browsers send it: tokens separated by commas. */
const HEADER_LIST = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:\s*,\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*$/

/** Parses `SVC_CORS_ORIGINS`; throws an Error fit for a person on a bad entry. */
export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  const text = value?.trim() ?? ''
  if (text === '' || text === '*') return '*'
  if (text.toLowerCase() === 'none') return 'none'
  return text.split(',').map((entry) => {
    const origin = entry.trim()
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      throw new Error(`SVC_CORS_ORIGINS: "${origin}" is not an origin like https://app.example`)
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      throw new Error(`SVC_CORS_ORIGINS: "${origin}" is not an origin like https://app.example (no path)`)
    }
    return url.origin
  })
}

export interface Cors {
  /** Whether `path` gets CORS at all (`/v1` and below, when CORS is on). */
  covers(path: string): boolean
  /** Answers a preflight; returns false when `req` is not one (then handle it as usual). */
  preflight(req: IncomingMessage, res: ServerResponse): boolean
  /** Sets the headers that let an allowed origin read the answer about to be written. */
  decorate(req: IncomingMessage, res: ServerResponse): void
}

export function createCors(origins: CorsOrigins): Cors {
  const listed = Array.isArray(origins) ? new Set(origins) : undefined
  const allowed = (origin: string | undefined): string | undefined => {
    if (!origin || origins === 'none') return undefined
    if (origins === '*') return '*'
    return listed?.has(origin) ? origin : undefined
  }
  return {
    covers: (path) => origins !== 'none' && (path === '/v1' || path.startsWith('/v1/')),
    preflight(req, res) {
      if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false
      const allow = allowed(req.headers.origin)
      const headers: Record<string, string> = {}
      if (listed) headers.vary = 'Origin'
      if (allow) {
        headers['access-control-allow-origin'] = allow
        headers['access-control-allow-methods'] = METHODS
        headers['access-control-max-age'] = MAX_AGE
        const asked = req.headers['access-control-request-headers']
        if (typeof asked === 'string' && asked.length <= 2048 && HEADER_LIST.test(asked.trim())) {
          headers['access-control-allow-headers'] = asked.trim()
        }
      }
      res.writeHead(204, headers)
      res.end()
      return true
    },
    decorate(req, res) {
      if (listed) res.setHeader('vary', 'Origin')
      const allow = allowed(req.headers.origin)
      if (!allow) return
      res.setHeader('access-control-allow-origin', allow)
      res.setHeader('access-control-expose-headers', EXPOSE)
    },
  }
}
