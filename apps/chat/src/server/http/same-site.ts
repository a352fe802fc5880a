import { SvcError } from '@svc/core'
import type { MiddlewareHandler } from 'hono'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses changes that another site's page asks the browser to make (the browser would attach the
 * proxy's cached basic-auth credentials by itself): a non-GET request must be `Sec-Fetch-Site:
 * same-origin` or `none`; without that header, an `Origin` must equal the request's own origin; with
 * neither it is not a browser (curl, scripts) and passes. The same rule as the API's.
 *
 * `ownOrigins` are the origins this request may come from: the Host as the chat server saw it, and
 * the proxy's `X-Forwarded-Host`/`-Proto` when the request came through the trusted proxy.
 */
export function sameSiteOnly(
  ownOrigins: (c: Parameters<MiddlewareHandler>[0]) => string[],
): MiddlewareHandler {
  return async function sameSite(c, next) {
    if (!SAFE_METHODS.has(c.req.method)) {
      const site = c.req.header('sec-fetch-site')
      const origin = c.req.header('origin')
      const allowed =
        site !== undefined
          ? site === 'same-origin' || site === 'none'
          : origin === undefined || ownOrigins(c).includes(origin)
      if (!allowed) {
        throw new SvcError(
          'auth.forbidden',
          'cross-site request refused: changes must come from the chat app’s own pages (same-origin)',
        )
      }
    }
    await next()
  }
}
