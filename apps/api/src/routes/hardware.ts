import { SvcError } from '@svc/core'
import type { Picker } from '@svc/providers'
import { Hono } from 'hono'
import type { MemoryBudget } from '../slots/memory-budget'

/**
 * `GET /api/hardware` → the picker's report: what this machine has (GPUs, NPU, memory, container
 * engine, images, host engines) and, per provider, each backend it declares — honoured here with
 * which runtimes, or why not — plus the default backend per provider; and under `memory` each
 * device's budget, which slots hold it, and their estimate against what they really use.
 * `?refresh=1` detects again instead of using the cached detection (30 s).
 */
export function hardwareRoutes(deps: {
  hardware?: Pick<Picker, 'report'>
  slots?: { memory?: Pick<MemoryBudget, 'report'> }
}) {
  return new Hono().get('/', async (c) => {
    if (!deps.hardware)
      throw new SvcError('route.not_found', 'hardware detection is not wired in this server')
    const refresh = c.req.query('refresh')
    const report = await deps.hardware.report({ refresh: refresh === '1' || refresh === 'true' })
    const memory = (await deps.slots?.memory?.report()) ?? { devices: [] }
    return c.json({ ...report, memory })
  })
}
