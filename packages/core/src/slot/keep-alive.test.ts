import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import { SlotManager } from './slot-manager'

function setup(demand: Partial<SlotConfig['demand']> = {}) {
  const c = defaultSlotConfig('primary')!
  const config = { ...c, demand: { ...c.demand, loadOnRequest: true, ...demand } }
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const driver = createTestDriver({ probesUntilHealthy: 0 })
  driver.clock = clock
  const m = new SlotManager({
    configs: [config],
    bus,
    clock,
    createDriver: () => driver,
    resolveModel: async (id) => model(id),
    describeModel: async (id) => model(id, { role: 'chat' }),
    slotOptions: { probeIntervalMs: 1, drainMs: 100 },
  })
  const use = async (ref: string) =>
    (await clock.run(m.acquire('primary', { ref, timeoutMs: 10_000 }))).release()
  const state = () => m.get('primary').snapshot().state
  return { m, clock, use, state }
}

describe("a client's keep_alive over the slot's idle unload", () => {
  it('unloads after the keep_alive instead of unload_after, for the model it was set for', async () => {
    const { m, clock, use, state } = setup({ unloadAfterMs: 60_000 })
    await use('a')
    m.keepAlive('primary', 'a', 2_000)
    await use('a') // the next idle moment reads the override
    await clock.advance(1_900)
    expect(state()).toBe('idle')
    await clock.advance(200)
    expect(state()).toBe('offline')
  })

  it('unloads as soon as the slot is idle for 0, and never for Infinity', async () => {
    const zero = setup()
    await zero.use('a')
    zero.m.keepAlive('primary', 'a', 0)
    await zero.use('a')
    await zero.clock.advance(5)
    expect(zero.state()).toBe('offline')

    const forever = setup({ unloadAfterMs: 1_000 })
    await forever.use('a')
    forever.m.keepAlive('primary', 'a', Number.POSITIVE_INFINITY)
    await forever.use('a')
    await forever.clock.advance(60_000)
    expect(forever.state()).toBe('idle')
  })

  it('is forgotten when another model comes in, and cleared by null', async () => {
    const { m, clock, use, state } = setup({ unloadAfterMs: 1_000 })
    await use('a')
    m.keepAlive('primary', 'a', Number.POSITIVE_INFINITY)
    await use('b') // a swap: the override was for "a"
    expect(m.idlePolicy('primary').unloadAfterMs).toBe(1_000)
    await clock.advance(1_100)
    expect(state()).toBe('offline')
    await use('a')
    m.keepAlive('primary', 'a', Number.POSITIVE_INFINITY)
    m.keepAlive('primary', 'a', null)
    expect(m.idlePolicy('primary').unloadAfterMs).toBe(1_000)
  })

  it('leaves a pinned slot loaded whatever the keep_alive says', async () => {
    const { m, clock, use, state } = setup({ pinned: true })
    await use('a')
    m.keepAlive('primary', 'a', 0)
    await use('a')
    await clock.advance(10_000)
    expect(state()).toBe('idle')
  })
})
