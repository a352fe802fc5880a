import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import { Slot } from './slot'

function setup() {
  const bus = createEventBus<SvcEvents>()
  const states: string[] = []
  bus.on('slot.transition', (e) => states.push(e.to))
  // The test's clock, not the wall clock: exact on a busy machine.
  const clock = createTestClock()
  const driver = createTestDriver()
  driver.clock = clock
  const slot = new Slot({
    config: defaultSlotConfig('primary')!,
    driver,
    bus,
    clock,
    probeIntervalMs: 1,
    drainMs: 200,
  })
  return { slot, states, clock }
}

describe('Slot memory hooks', () => {
  it('evicts an idle slot at once: unloading before the call returns, then offline', async () => {
    const { slot, states, clock } = setup()
    await clock.run(slot.load(model('a')))
    const evicted = slot.evictIfIdle()
    expect(evicted).toBeDefined()
    expect(slot.snapshot().state).toBe('unloading')
    await expect(clock.run(slot.acquire({ timeoutMs: 100 }))).rejects.toMatchObject({
      code: 'model.not_loaded',
    })
    expect((await clock.run(evicted!))?.state).toBe('offline')
    expect(states).toEqual(['starting', 'warming', 'ready', 'unloading', 'offline'])
  })

  it('never evicts a slot with a request in flight', async () => {
    const { slot, clock } = setup()
    await clock.run(slot.load(model('a')))
    const lease = await clock.run(slot.acquire({ timeoutMs: 100 }))
    expect(slot.evictIfIdle()).toBeUndefined()
    expect(slot.snapshot().state).toBe('serving')
    lease.release()
    expect(slot.snapshot().state).toBe('idle')
    expect(slot.evictIfIdle()).toBeDefined()
  })

  it('never evicts a slot that is still loading', async () => {
    const { slot, clock } = setup()
    const loading = slot.load(model('a'))
    expect(slot.evictIfIdle()).toBeUndefined()
    await clock.run(loading)
  })

  it('speaks for the model being loaded, the one held, or the one a restart brings back', async () => {
    const { slot, clock } = setup()
    expect(slot.targetModel()).toBeNull()
    const loading = slot.load(model('a'))
    expect(slot.targetModel()?.id).toBe('a')
    await clock.run(loading)
    const swap = slot.load(model('b'))
    expect(slot.targetModel()?.id).toBe('b') // a swap's memory is the new model's
    await clock.run(swap)
    await clock.run(slot.unload())
    expect(slot.targetModel()).toBeNull()
  })
})
