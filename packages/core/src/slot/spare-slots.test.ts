/**
 * Spare slots through the manager, on a test clock and driver: a ref the slot does not hold opens one
 * spare for all its concurrent requests when the admission has room; `max_loaded = 1` or no room keeps
 * today's swap; a spare idles out (5 min by default) and goes with `slot.removed`; a spare whose load
 * fails answers its requests with the failure, once, and goes.
 */
import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { SvcError } from '../errors'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import type { LoadAdmission } from './load-admission'
import { SlotManager } from './slot-manager'

function primary(demand: Partial<SlotConfig['demand']> = {}): SlotConfig {
  const c = defaultSlotConfig('primary')!
  return { ...c, demand: { ...c.demand, loadOnRequest: true, ...demand } }
}

/** Room for `capacity` models at once, counted over every slot's target model. */
function setup(config: SlotConfig, capacity: number) {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const driver = createTestDriver({ probesUntilHealthy: 0 })
  driver.clock = clock
  const events: { type: string; slot: string }[] = []
  for (const type of ['slot.added', 'slot.removed'] as const)
    bus.on(type, (e) => events.push({ type, slot: e.slot }))
  let m!: SlotManager
  const loaded = () => m.names().filter((n) => m.get(n).targetModel() !== null).length
  const admission: LoadAdmission = {
    async admit(r) {
      const others = m.names().filter((n) => n !== r.slot.name && m.get(n).targetModel() !== null).length
      if (r.beside && others >= capacity) throw new SvcError('memory.insufficient', 'no room')
      r.start()
    },
    roomBeside: async () => loaded() < capacity,
  }
  m = new SlotManager({
    configs: [config],
    bus,
    clock,
    createDriver: () => driver,
    resolveModel: async (id) => model(id),
    describeModel: async (id) => model(id, { role: 'chat' }),
    admission,
    slotOptions: { probeIntervalMs: 1, drainMs: 100 },
  })
  return { m, clock, driver, events }
}

describe('spare slots', () => {
  it('opens one spare for concurrent requests of a ref the slot does not hold, beside its model', async () => {
    const { m, clock, driver, events } = setup(primary(), 4)
    await clock.run(m.load('primary', 'a'))
    const leases = await clock.run(
      Promise.all(['b', 'a', 'b', 'b'].map((ref) => m.acquire('primary', { ref, timeoutMs: 10_000 }))),
    )
    expect(leases.map((l) => l.model.id)).toEqual(['b', 'a', 'b', 'b'])
    expect(driver.started).toEqual(['a', 'b'])
    expect(m.names()).toEqual(['primary', 'primary-2'])
    expect(m.spareOf('primary-2')).toBe('primary')
    expect(m.findByModel('b')?.name).toBe('primary-2')
    expect(m.get('primary').currentModel()?.id).toBe('a')
    expect(events).toEqual([{ type: 'slot.added', slot: 'primary-2' }])
    for (const l of leases) l.release()
    // Naming the slot reaches the slot's own model.
    const named = await clock.run(m.acquire('primary', { timeoutMs: 1_000 }))
    expect(named.model.id).toBe('a')
    named.release()
  })

  it('swaps as before with max_loaded = 1, and when memory has no room', async () => {
    for (const { config, capacity } of [
      { config: primary({ maxLoaded: 1 }), capacity: 4 },
      { config: primary(), capacity: 1 },
    ]) {
      const { m, clock, driver } = setup(config, capacity)
      await clock.run(m.load('primary', 'a'))
      const lease = await clock.run(m.acquire('primary', { ref: 'b', timeoutMs: 10_000 }))
      expect(lease.model.id).toBe('b')
      lease.release()
      expect(m.names()).toEqual(['primary'])
      expect(driver.started).toEqual(['a', 'b'])
    }
  })

  it('never holds more than max_loaded models in the family', async () => {
    const { m, clock } = setup(primary({ maxLoaded: 3 }), 10)
    await clock.run(m.load('primary', 'a'))
    for (const ref of ['b', 'c', 'd'])
      (await clock.run(m.acquire('primary', { ref, timeoutMs: 10_000 }))).release()
    expect(m.names()).toEqual(['primary', 'primary-2', 'primary-3'])
    expect(m.list().map((s) => s.model)).toEqual(['d', 'b', 'c']) // the fourth swapped the parent
  })

  it('idles a spare out after 5 minutes when its parent has no unload_after, then it goes', async () => {
    const { m, clock, events } = setup(primary(), 4)
    await clock.run(m.load('primary', 'a'))
    ;(await clock.run(m.acquire('primary', { ref: 'b', timeoutMs: 10_000 }))).release()
    await clock.advance(4 * 60_000)
    expect(m.names()).toEqual(['primary', 'primary-2'])
    await clock.advance(60_000 + 1_000)
    expect(m.names()).toEqual(['primary'])
    expect(m.get('primary').currentModel()?.id).toBe('a')
    expect(events.map((e) => e.type)).toEqual(['slot.added', 'slot.removed'])
    // The name is free again.
    ;(await clock.run(m.acquire('primary', { ref: 'c', timeoutMs: 10_000 }))).release()
    expect(m.names()).toEqual(['primary', 'primary-2'])
  })

  it("answers a failed spare load's requests with the failure, once, and the spare goes", async () => {
    const { m, clock, driver, events } = setup(primary(), 4)
    await clock.run(m.load('primary', 'a'))
    driver.failStart = 'no engine'
    const failed = await clock.run(
      Promise.allSettled([1, 2].map(() => m.acquire('primary', { ref: 'b', timeoutMs: 10_000 }))),
    )
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(String((failed[0] as PromiseRejectedResult).reason)).toContain('no engine')
    await clock.advance(10)
    expect(m.names()).toEqual(['primary'])
    expect(events.map((e) => e.type)).toEqual(['slot.added', 'slot.removed'])
  })

  it("stops what a previous run's spares left running, never adopting them nor touching named slots", async () => {
    const clock = createTestClock()
    const stopped: string[] = []
    const leftover = (name: string) => ({
      model: model('x'),
      handle: {
        base: new URL('http://127.0.0.1:1'),
        exited: new Promise<never>(() => undefined),
        stop: async () => {
          stopped.push(name)
        },
        describe: () => ({}),
        logs: () => [],
      },
    })
    const named = { ...primary(), name: 'primary-2', provider: 'llm' }
    const m = new SlotManager({
      configs: [primary(), named],
      bus: createEventBus<SvcEvents>(),
      clock,
      createDriver: (config) => ({
        ...createTestDriver(),
        recover: async () => (config.name.startsWith('primary-') ? leftover(config.name) : undefined),
      }),
      resolveModel: async (id) => model(id),
    })
    await clock.run(m.recoverAll())
    // primary-2 is a named slot here: adopted as its own (primary-2-2… are its spares' names).
    expect(stopped.sort()).toEqual(['primary-2-2', 'primary-2-3', 'primary-2-4', 'primary-3', 'primary-4'])
    expect(m.names()).toEqual(['primary', 'primary-2'])
    expect(m.get('primary-2').snapshot().state).toBe('ready')
  })
})
