import { describe, expect, it } from 'vitest'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import { Slot } from './slot'
import { createTestClock } from './test-clock'
import { createTestDriver, model } from './test-driver'

/** A slot with the default probe interval (200 ms) on the test clock. */
function setup(probesUntilHealthy: number) {
  const clock = createTestClock()
  const driver = createTestDriver({ probesUntilHealthy })
  driver.clock = clock
  const slot = new Slot({
    config: defaultSlotConfig('primary')!,
    driver,
    bus: createEventBus<SvcEvents>(),
    clock,
  })
  return { slot, clock, driver }
}

describe('warming', () => {
  it('probes soon after the start, so a fast upstream is ready within a few ms, not a whole interval', async () => {
    const { slot, clock } = setup(3)
    const began = clock.now()
    await clock.run(slot.load(model('a')))
    expect(slot.snapshot().state).toBe('ready')
    expect(clock.now() - began).toBeLessThan(50)
  })

  it('backs off to the interval for a slow upstream, never waiting longer between probes', async () => {
    const { slot, clock } = setup(12)
    const began = clock.now()
    await clock.run(slot.load(model('a')))
    expect(slot.snapshot().state).toBe('ready')
    // 12 failed probes: the gaps grow from 5 ms by half each time and stop at 200 ms (~970 ms in all),
    // not 12 × 5 ms of hammering nor 12 × 200 ms of waiting.
    expect(clock.now() - began).toBeGreaterThan(500)
    expect(clock.now() - began).toBeLessThan(1200)
  })
})
