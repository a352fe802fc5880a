import { SvcError } from '@svc/core'
import type { Picker } from '@svc/providers'
import { Hono } from 'hono'

/**
 * `GET /api/hardware` → the picker's report: what this machine has (GPUs, NPU, memory, container
 * engine, images, host engines) and, per provider, each backend it declares — honoured here with
 * which runtimes, or why not — plus the default backend per provider. `?refresh=1` detects again
 * instead of using the cached detection (30 s).
 */
export function hardwareRoutes(deps: { hardware?: Pick<Picker, 'report'> }) {
  return new Hono().get('/', async (c) => {
    if (!deps.hardware)
      throw new SvcError('route.not_found', 'hardware detection is not wired in this server')
    const refresh = c.req.query('refresh')
    return c.json(await deps.hardware.report({ refresh: refresh === '1' || refresh === 'true' }))
  })
}
