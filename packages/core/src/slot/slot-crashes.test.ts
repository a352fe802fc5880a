import { describe, expect, it } from 'vitest'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { setup } from '../../test/slot/test-slot'

/** Loads model a, takes a lease, crashes the upstream and waits until it is ready again; returns that lease. */
async function leaseAcrossCrash({ slot, driver, bus, clock }: ReturnType<typeof setup>) {
  await clock.run(slot.load(model('a')))
  const before = await slot.acquire({ timeoutMs: 100 })
  const back = bus.once('slot.transition', (e) => e.to === 'ready')
  driver.handles[0]?.crash()
  await clock.run(back)
  return before
}

/**
 * Takes a new lease, then releases `old` (taken on an upstream that is gone): only the new one may
 * count (serving, 1 in flight); releasing it leaves the slot idle with none.
 */
async function expectOnlyNewLeaseCounted(slot: ReturnType<typeof setup>['slot'], old: { release(): void }) {
  const fresh = await slot.acquire({ timeoutMs: 100 })
  old.release()
  expect(slot.snapshot()).toMatchObject({ state: 'serving', inflight: 1 })
  fresh.release()
  expect(slot.snapshot()).toMatchObject({ state: 'idle', inflight: 0 })
}

describe('Slot leases belong to the upstream they were taken on', () => {
  it('a lease from before a crash, released after the restart, leaves the new upstream’s count alone', async () => {
    const t = setup()
    const { slot } = t
    const before = await leaseAcrossCrash(t)
    expect(slot.snapshot()).toMatchObject({ state: 'ready', inflight: 0 })
    await expectOnlyNewLeaseCounted(slot, before)
  })

  it('still drains a live request on unload after an old lease was released late', async () => {
    const t = setup({ slot: { drainMs: 1_000 } })
    const { slot, driver, clock } = t
    const before = await leaseAcrossCrash(t)
    const live = await slot.acquire({ timeoutMs: 100 })
    before.release()
    const unloading = slot.unload()
    await clock.advance(500)
    // The live request is still being served: the upstream must not be stopped under it.
    expect(driver.handles[1]?.stopped).toBe(false)
    expect(slot.snapshot()).toMatchObject({ state: 'unloading', inflight: 1 })
    live.release()
    await clock.run(unloading)
    expect(driver.handles[1]?.stopped).toBe(true)
  })

  it('a lease outliving a forced unload does not count against the next load', async () => {
    const { slot, clock } = setup({ slot: { drainMs: 50 } })
    await clock.run(slot.load(model('a')))
    const stuck = await slot.acquire({ timeoutMs: 100 })
    await clock.run(slot.unload())
    await clock.run(slot.load(model('a')))
    await expectOnlyNewLeaseCounted(slot, stuck)
  })

  it('stops draining an upstream that exits during the unload', async () => {
    const { slot, driver, clock } = setup({ slot: { drainMs: 10_000 } })
    await clock.run(slot.load(model('a')))
    await slot.acquire({ timeoutMs: 100 })
    const t0 = clock.now()
    const unloading = slot.unload()
    await clock.advance(10)
    expect(slot.snapshot()).toMatchObject({ state: 'unloading', inflight: 1 })
    driver.handles[0]?.crash()
    await clock.settle()
    expect(slot.snapshot()).toMatchObject({ state: 'offline', inflight: 0 })
    await unloading
    expect(clock.now()).toBe(t0 + 10)
  })
})

describe('Slot restart policy', () => {
  it('backs off exponentially and gives up after max_restarts', async () => {
    const driver = createTestDriver({ probesUntilHealthy: 0 })
    const { slot, bus, clock } = setup({
      driver,
      config: { maxRestarts: 3 },
      slot: { restartBaseDelayMs: 1_000 },
    })
    const restarts: number[] = []
    bus.on('slot.restart', (e) => restarts.push(e.delayMs))
    await clock.run(slot.load(model('a')))
    driver.failStart = 'cannot start'
    driver.handles[0]?.crash()
    await clock.advance(0)
    expect(restarts).toEqual([1_000])
    await clock.advance(999)
    expect(restarts).toEqual([1_000])
    await clock.advance(1)
    expect(restarts).toEqual([1_000, 2_000])
    await clock.advance(2_000)
    expect(restarts).toEqual([1_000, 2_000, 4_000])
    await clock.advance(4_000)
    await clock.advance(60_000)
    expect(restarts).toEqual([1_000, 2_000, 4_000])
    expect(slot.snapshot()).toMatchObject({ state: 'offline', lastError: 'cannot start', restarts: 3 })
  })

  it('does not restart after an explicit unload', async () => {
    const driver = createTestDriver({ probesUntilHealthy: 0 })
    const { slot, clock } = setup({ driver, slot: { restartBaseDelayMs: 20 } })
    await clock.run(slot.load(model('a')))
    driver.handles[0]?.crash()
    await clock.advance(1)
    await clock.run(slot.unload())
    await clock.advance(60)
    expect(clock.pending).toBe(0)
    expect(driver.started).toEqual(['a'])
    expect(slot.snapshot().state).toBe('offline')
  })
})
