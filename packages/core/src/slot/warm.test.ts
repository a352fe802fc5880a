import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import type { UpstreamHandle } from '../slot-driver'
import { Slot } from './slot'
import { warmUp } from './warm'

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

  it('probes at once when the upstream says it is ready (its log line), not at its next poll', async () => {
    // Healthy from 1000 ms on. Polled alone, the probes (5 ms growing by half, at most 200 ms apart)
    // find it at ~1166 ms; with the upstream's word at 1000 ms, the probe runs then, and before it
    // only the fallback's probes every 200 ms.
    let probes = 0
    const readyAfter = async (says: boolean) => {
      probes = 0
      const clock = createTestClock()
      const began = clock.now()
      let tell: () => void = () => undefined
      const saysReady = new Promise<void>((resolve) => {
        tell = resolve
      })
      void clock.sleep(1_000).then(tell)
      const handle: UpstreamHandle = {
        base: new URL('http://127.0.0.1:1'),
        exited: new Promise(() => undefined),
        stop: async () => undefined,
        describe: () => ({}),
        logs: () => [],
        ...(says ? { saysReady } : {}),
      }
      const probe = async () => {
        probes++
        return clock.now() - began >= 1_000
      }
      const signal = new AbortController().signal
      const driver = { warmupTimeoutMs: 60_000, probe }
      await clock.run(warmUp({ driver, clock, handle, signal, intervalMs: 200 }))
      return clock.now() - began
    }
    expect(await readyAfter(true)).toBe(1_000)
    // Between its line and the 200 ms fallback, nothing is asked of a starting engine that will say it.
    expect(probes).toBeLessThanOrEqual(5)
    expect(await readyAfter(false)).toBeGreaterThan(1_100)
    expect(probes).toBeGreaterThan(10)
  })
})
