import { createEventBus, type SlotConfig, type SvcEvents } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { createMetrics } from '../metrics'
import { registerAlertMetrics } from './alert-metrics'
import type { MemoryReport } from './memory-budget'
import type { SlotSystem } from './slot-system'

interface FakeSlot {
  enabled: boolean
  maxQueue: number
  loadOnRequest?: boolean
  unloadAfterMs?: number
}

/** The parts of a slot system the alert series read: slot names and configs, the bus, the memory report. */
function fakeSystem(slots: Map<string, FakeSlot>, memory: () => Promise<MemoryReport>) {
  const bus = createEventBus<SvcEvents>()
  const manager = {
    names: () => [...slots.keys()],
    config: (name: string) =>
      ({
        name,
        enabled: slots.get(name)!.enabled,
        demand: { maxQueue: slots.get(name)!.maxQueue, loadOnRequest: slots.get(name)!.loadOnRequest },
      }) as unknown as SlotConfig,
    loadsOnRequest: (config: SlotConfig) => config.demand.loadOnRequest ?? false,
    idlePolicy: (name: string) => ({ unloadAfterMs: slots.get(name)!.unloadAfterMs ?? 0, pinned: false }),
  }
  return { bus, system: { manager, bus, memory: { report: memory } } as unknown as SlotSystem }
}

const device = (id: string, budgetBytes: number | null, usedBytes: number) =>
  ({ id, budgetBytes, usedBytes }) as MemoryReport['devices'][number]

describe('the alert rules’ series', () => {
  it('says which slots are enabled and whether svc loads them on its own, and each queue cap', async () => {
    const slots = new Map<string, FakeSlot>([
      ['primary', { enabled: true, maxQueue: 8 }],
      ['embed', { enabled: false, maxQueue: 0 }],
      ['chat2', { enabled: true, maxQueue: 0, loadOnRequest: true }],
      ['tts', { enabled: true, maxQueue: 0, unloadAfterMs: 300_000 }],
    ])
    const metrics = createMetrics({ processMetrics: false })
    registerAlertMetrics(metrics, fakeSystem(slots, async () => ({ devices: [] })).system)
    const text = await metrics.registry.metrics()
    expect(text).toContain('svc_slot_enabled{slot="primary",on_demand="false"} 1')
    expect(text).toContain('svc_slot_enabled{slot="embed",on_demand="false"} 0')
    expect(text).toContain('svc_slot_enabled{slot="chat2",on_demand="true"} 1')
    expect(text).toContain('svc_slot_enabled{slot="tts",on_demand="true"} 1')
    expect(text).toContain('svc_slot_queue_max{slot="primary"} 8')
    expect(text).toContain('svc_slot_queue_max{slot="embed"} 0')
  })

  it('counts restarts per slot from 0, keeps a returning slot’s count, and drops a slot that went', async () => {
    const slots = new Map<string, FakeSlot>([
      ['primary', { enabled: true, maxQueue: 0 }],
      ['primary-2', { enabled: true, maxQueue: 0 }],
    ])
    const metrics = createMetrics({ processMetrics: false })
    const { bus, system } = fakeSystem(slots, async () => ({ devices: [] }))
    registerAlertMetrics(metrics, system)
    expect(await metrics.registry.metrics()).toContain('svc_slot_restarts_total{slot="primary"} 0')
    const restart = (slot: string) =>
      bus.emit('slot.restart', { slot, model: 'm', attempt: 1, delayMs: 1000, at: 0 })
    restart('primary')
    restart('primary')
    restart('primary-2')
    let text = await metrics.registry.metrics()
    expect(text).toContain('svc_slot_restarts_total{slot="primary"} 2')
    expect(text).toContain('svc_slot_restarts_total{slot="primary-2"} 1')
    slots.delete('primary-2')
    text = await metrics.registry.metrics()
    expect(text).not.toContain('slot="primary-2"')
    slots.set('primary-2', { enabled: true, maxQueue: 0 })
    expect(await metrics.registry.metrics()).toContain('svc_slot_restarts_total{slot="primary-2"} 1')
  })

  it('reports each device’s budget and use from one memory report per scrape', async () => {
    let reports = 0
    let used = 10
    const memory = async () => {
      reports++
      return { devices: [device('gpu0', 100, used), device('ram', null, 5)] }
    }
    const metrics = createMetrics({ processMetrics: false })
    registerAlertMetrics(metrics, fakeSystem(new Map(), memory).system)
    let text = await metrics.registry.metrics()
    expect(reports).toBe(1)
    expect(text).toContain('svc_memory_budget_bytes{device="gpu0"} 100')
    expect(text).not.toContain('svc_memory_budget_bytes{device="ram"}') // no known budget
    expect(text).toContain('svc_memory_used_bytes{device="gpu0"} 10')
    expect(text).toContain('svc_memory_used_bytes{device="ram"} 5')
    used = 95
    text = await metrics.registry.metrics()
    expect(reports).toBe(2)
    expect(text).toContain('svc_memory_used_bytes{device="gpu0"} 95')
  })
})
