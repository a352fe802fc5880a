import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/**
 * Open system endpoints.
 *
 * - `GET /api/health/system` → `{status:"ok", version, uptime_s}` (liveness; never touches upstreams)
 * - `GET /api/status` → `{status:"ok", version, auth, time}` (the dashboard's ping)
 * - `GET /api/features` → `{features:{…}}` (what this build and config switch on)
 * - `GET /api/metrics` → Prometheus text
 */
export function systemRoutes(deps: AppDeps) {
  const now = deps.clock ?? Date.now
  return new Hono()
    .get('/health/system', (c) =>
      c.json({
        status: 'ok' as const,
        version: deps.version,
        uptime_s: Math.round((now() - deps.startedAt) / 1000),
      }),
    )
    .get('/status', (c) =>
      c.json({
        status: 'ok' as const,
        version: deps.version,
        auth: deps.auth.enabled ? ('on' as const) : ('off' as const),
        time: new Date(now()).toISOString(),
      }),
    )
    .get('/features', (c) => c.json({ features: deps.features }))
    .get('/metrics', async (c) => {
      await deps.beforeMetrics?.()
      const [own, upstreams] = await Promise.all([
        deps.metrics.registry.metrics(),
        deps.upstreamMetrics?.() ?? '',
      ])
      return c.body(own + deps.metrics.hot.render() + upstreams, 200, {
        'content-type': deps.metrics.registry.contentType,
      })
    })
}
