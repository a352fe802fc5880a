import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { ApiMetrics } from '../metrics'

/**
 * Counts every response by method, route *pattern* (never the raw path: `/api/slots/:slot`, not
 * `/api/slots/primary`, so a scanner cannot explode the label set) and status. Requests that matched
 * no handler are labelled `unmatched`.
 */
export function httpMetrics(metrics: ApiMetrics): MiddlewareHandler {
  return async function httpMetricsMiddleware(c, next) {
    const start = performance.now()
    await next()
    const handler = matchedRoutes(c).findLast((r) => r.method !== 'ALL')
    const labels = { method: c.req.method, route: handler?.path ?? 'unmatched', status: String(c.res.status) }
    metrics.httpRequests.inc(labels)
    metrics.httpDuration.observe(labels, (performance.now() - start) / 1000)
  }
}
