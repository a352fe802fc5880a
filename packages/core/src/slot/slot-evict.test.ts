import { describe, expect, it } from 'vitest'
import { createEventBus } from '../event-bus'
import { type SvcEvents, systemClock } from '../events'
import { defaultSlotConfig } from '../slot-config'
import { Slot } from './slot'
import { createTestDriver, model } from './test-driver'

function setup() {
  const bus = createEventBus<SvcEvents>()
  const states: string[] = []
  bus.on('slot.transition', (e) => states.push(e.to))
  const slot = new Slot({
    config: defaultSlotConfig('primary')!,
    driver: createTestDriver(),
    bus,
    clock: systemClock,
    probeIntervalMs: 1,
    drainMs: 200,
  })
  return { slot, states }
}

describe('Slot memory hooks', () => {
  it('evicts an idle slot at once: unloading before the call returns, then offline', async () => {
    const { slot, states } = setup()
    await slot.load(model('a'))
    const evicted = slot.evictIfIdle()
    expect(evicted).toBeDefined()
    expect(slot.snapshot().state).toBe('unloading')
    await expect(slot.acquire({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'model.not_loaded' })
    expect((await evicted)?.state).toBe('offline')
    expect(states).toEqual(['starting', 'warming', 'ready', 'unloading', 'offline'])
  })

  it('never evicts a slot with a request in flight', async () => {
    const { slot } = setup()
    await slot.load(model('a'))
    const lease = await slot.acquire({ timeoutMs: 100 })
    expect(slot.evictIfIdle()).toBeUndefined()
    expect(slot.snapshot().state).toBe('serving')
    lease.release()
    expect(slot.snapshot().state).toBe('idle')
    expect(slot.evictIfIdle()).toBeDefined()
  })

  it('never evicts a slot that is still loading', async () => {
    const { slot } = setup()
    const loading = slot.load(model('a'))
    expect(slot.evictIfIdle()).toBeUndefined()
    await loading
  })

  it('speaks for the model being loaded, the one held, or the one a restart brings back', async () => {
    const { slot } = setup()
    expect(slot.targetModel()).toBeNull()
    const loading = slot.load(model('a'))
    expect(slot.targetModel()?.id).toBe('a')
    await loading
    const swap = slot.load(model('b'))
    expect(slot.targetModel()?.id).toBe('b') // a swap's memory is the new model's
    await swap
    await slot.unload()
    expect(slot.targetModel()).toBeNull()
  })
})
