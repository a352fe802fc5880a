import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import { Slot } from './slot'

/**
 * Loads a slot with the default probe interval (200 ms) on the test clock, its upstream healthy from
 * probe `probesUntilHealthy` on; checks that it got to ready and returns how long that took (ms).
 */
async function msToReady(probesUntilHealthy: number): Promise<number> {
  const clock = createTestClock()
  const driver = createTestDriver({ probesUntilHealthy })
  driver.clock = clock
  const slot = new Slot({
    config: defaultSlotConfig('primary')!,
    driver,
    bus: createEventBus<SvcEvents>(),
    clock,
  })
  const began = clock.now()
  await clock.run(slot.load(model('a')))
  expect(slot.snapshot().state).toBe('ready')
  return clock.now() - began
}

describe('warming', () => {
  it('probes soon after the start, so a fast upstream is ready within a few ms, not a whole interval', async () => {
    expect(await msToReady(3)).toBeLessThan(50)
  })

  it('backs off to the interval for a slow upstream, never waiting longer between probes', async () => {
    const ms = await msToReady(12)
    // 12 failed probes: the gaps grow from 5 ms by half each time and stop at 200 ms (~970 ms in all),
    // not 12 × 5 ms of hammering nor 12 × 200 ms of waiting.
    expect(ms).toBeGreaterThan(500)
    expect(ms).toBeLessThan(1200)
  })
})
