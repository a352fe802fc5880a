/**
 * A `Slot` on the test clock and the in-memory test driver, with its transitions recorded: what the
 * slot owner's unit tests start from.
 */
import { createEventBus } from '../../src/event-bus'
import type { SlotTransitionEvent, SvcEvents } from '../../src/events'
import { Slot, type SlotOptions } from '../../src/slot/slot'
import { defaultSlotConfig, type SlotConfig } from '../../src/slot-config'
import { createTestClock } from './test-clock'
import { createTestDriver, type TestDriver } from './test-driver'

export function setup(
  options: { driver?: TestDriver; config?: Partial<SlotConfig>; slot?: Partial<SlotOptions> } = {},
) {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const events: SlotTransitionEvent[] = []
  bus.on('slot.transition', (e) => events.push(e))
  const driver = options.driver ?? createTestDriver()
  driver.clock = clock
  const config = { ...defaultSlotConfig('primary')!, ...options.config }
  const slot = new Slot({
    config,
    driver,
    bus,
    clock,
    probeIntervalMs: 1,
    drainMs: 200,
    restartBaseDelayMs: 5,
    ...options.slot,
  })
  const path = () => events.map((e) => e.to)
  return { bus, slot, driver, events, path, clock }
}
