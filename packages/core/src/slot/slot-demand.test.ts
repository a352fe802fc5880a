import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SlotAutoEvent, SvcEvents } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import type { Lease } from './slot'
import type { LoadingNotice } from './slot-demand'
import { SlotManager } from './slot-manager'

function primary(demand: Partial<SlotConfig['demand']> = {}): SlotConfig {
  const c = defaultSlotConfig('primary')!
  return { ...c, demand: { ...c.demand, loadOnRequest: true, ...demand } }
}

function setup(config: SlotConfig, defaults?: { loadOnRequest?: boolean; unloadAfterMs?: number }) {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const driver = createTestDriver({ probesUntilHealthy: 0 })
  driver.clock = clock
  const auto: SlotAutoEvent[] = []
  bus.on('slot.auto', (e) => auto.push(e))
  const m = new SlotManager({
    configs: [config],
    bus,
    clock,
    createDriver: () => driver,
    resolveModel: async (id) => model(id),
    describeModel: async (id) => (id === 'unknown' ? undefined : model(id, { role: 'chat' })),
    ...(defaults ? { demandDefaults: defaults } : {}),
    slotOptions: { probeIntervalMs: 1, drainMs: 100 },
  })
  return { m, clock, driver, auto }
}

describe('SlotDemand (load on request, queue, idle unload)', () => {
  it('loads a ref a request names into the slot of its role, one load for concurrent requests', async () => {
    const { m, clock, driver, auto } = setup(primary())
    expect((await m.routeRef('a'))?.name).toBe('primary')
    expect(await m.routeRef('unknown')).toBeUndefined()
    const leases = await clock.run(
      Promise.all([1, 2, 3].map(() => m.acquire('primary', { ref: 'a', timeoutMs: 10_000 }))),
    )
    expect(leases.map((l) => l.model.id)).toEqual(['a', 'a', 'a'])
    expect(driver.started).toEqual(['a'])
    expect(auto).toMatchObject([{ slot: 'primary', action: 'load', reason: 'request', model: 'a' }])
    for (const l of leases) l.release()
  })

  it('routes nothing and keeps model.not_loaded when load on request is off', async () => {
    const c = defaultSlotConfig('primary')!
    const { m, clock } = setup(c)
    expect(await m.routeRef('a')).toBeUndefined()
    await expect(clock.run(m.acquire('primary', { timeoutMs: 1_000 }))).rejects.toMatchObject({
      code: 'model.not_loaded',
    })
  })

  it('turns on for every slot with the global default', async () => {
    const { m } = setup(defaultSlotConfig('primary')!, { loadOnRequest: true })
    expect((await m.routeRef('a'))?.name).toBe('primary')
  })

  it('serves the loaded model first, swaps after max_swap_wait, and starves nobody', async () => {
    const { m, clock, driver } = setup(primary({ maxSwapWaitMs: 5_000, maxConcurrent: 1 }))
    await clock.run(m.load('primary', 'a'))
    const served: string[] = []
    const hold = async (ref: string, ms: number) => {
      const lease = await m.acquire('primary', { ref, timeoutMs: 60_000 })
      served.push(ref)
      await clock.sleep(ms)
      lease.release()
    }
    // A steady stream of A (one per second, each taking 1 s) with one B waiting among them.
    const jobs = [hold('a', 1_000), hold('b', 1_000)]
    for (let i = 0; i < 10; i++) jobs.push(hold('a', 1_000))
    await clock.run(Promise.all(jobs), 120_000)
    expect(driver.started).toEqual(['a', 'b', 'a'])
    // B waited one window (not until every A was done), and every A was served in the end.
    expect(served.indexOf('b')).toBeGreaterThan(1)
    expect(served.indexOf('b')).toBeLessThan(8)
    expect(served.filter((r) => r === 'a')).toHaveLength(11)
  })

  it('swaps at once when nobody waits for the loaded model', async () => {
    const { m, clock, driver } = setup(primary())
    await clock.run(m.load('primary', 'a'))
    const lease = await clock.run(m.acquire('primary', { ref: 'b', timeoutMs: 10_000 }))
    expect(lease.model.id).toBe('b')
    expect(driver.started).toEqual(['a', 'b'])
    lease.release()
  })

  it('lets max_concurrent requests in and queues the rest until a release', async () => {
    const { m, clock } = setup(primary({ maxConcurrent: 2 }))
    await clock.run(m.load('primary', 'a'))
    const first = await clock.run(
      Promise.all([1, 2].map(() => m.acquire('primary', { ref: 'a', timeoutMs: 5_000 }))),
    )
    let third: Lease | undefined
    void m.acquire('primary', { ref: 'a', timeoutMs: 5_000 }).then((l) => {
      third = l
    })
    await clock.settle()
    expect(third).toBeUndefined()
    expect(m.queue('primary').depth).toBe(1)
    first[0]!.release()
    await clock.settle()
    expect(third?.model.id).toBe('a')
    expect(m.queue('primary')).toEqual({ depth: 0, oldestSince: null })
  })

  it('refuses beyond max_queue with 429 slot.busy and Retry-After', async () => {
    const { m, clock } = setup(primary({ maxConcurrent: 1, maxQueue: 1 }))
    await clock.run(m.load('primary', 'a'))
    const lease = await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 5_000 }))
    const waiting = m.acquire('primary', { ref: 'a', timeoutMs: 5_000 })
    await expect(m.acquire('primary', { ref: 'a', timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'slot.busy',
      status: 429,
      headers: { 'Retry-After': expect.any(String) },
    })
    lease.release()
    ;(await waiting).release()
  })

  it('answers 503 when a request waited past its time-out', async () => {
    const { m, clock } = setup(primary({ maxConcurrent: 1 }))
    await clock.run(m.load('primary', 'a'))
    const lease = await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 5_000 }))
    await expect(clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 2_000 }))).rejects.toMatchObject({
      code: 'slot.unavailable',
      status: 503,
    })
    expect(m.queue('primary').depth).toBe(0)
    lease.release()
  })

  it('tells a waiting request how far its model has loaded', async () => {
    const { m, clock, driver } = setup(primary())
    driver.missing.add('a')
    driver.pullStepMs = 100
    const notices: LoadingNotice[] = []
    const lease = await clock.run(
      m.acquire('primary', { ref: 'a', timeoutMs: 10_000, onLoading: (n) => notices.push(n) }),
    )
    expect(notices.map((n) => n.percent)).toContain(50)
    expect(notices.every((n) => n.model === 'a')).toBe(true)
    lease.release()
  })

  it('tells a request for another model that the held one is swapped out first, never that model’s state under the new name', async () => {
    const { m, clock } = setup(primary({ maxSwapWaitMs: 0 }))
    const held = await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 10_000 }))
    const notices: LoadingNotice[] = []
    const waiting = m.acquire('primary', { ref: 'b', timeoutMs: 60_000, onLoading: (n) => notices.push(n) })
    await clock.advance(50) // a's request still runs: the swap waits for it
    held.release()
    const lease = await clock.run(waiting)
    expect(lease.model.id).toBe('b')
    // First the old model goes (its drain, its unload), then the new one's own states.
    expect(notices[0]).toEqual({ model: 'b', state: 'swapping', replacing: 'a', percent: null })
    const starting = notices.findIndex((n) => n.state === 'starting')
    expect(starting).toBeGreaterThan(0)
    expect(notices.slice(0, starting).every((n) => n.state === 'swapping' && n.replacing === 'a')).toBe(true)
    expect(notices.slice(starting).some((n) => n.replacing !== undefined)).toBe(false)
    lease.release()
  })

  it('unloads after unload_after without a request, and loads again on the next one', async () => {
    const { m, clock, driver, auto } = setup(primary({ unloadAfterMs: 2_000 }))
    const lease = await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 10_000 }))
    lease.release()
    await clock.advance(1_900)
    expect(m.get('primary').snapshot().state).toBe('idle')
    await clock.advance(200)
    expect(m.get('primary').snapshot().state).toBe('offline')
    expect(auto.at(-1)).toMatchObject({ action: 'unload', reason: 'idle', model: 'a' })
    const again = await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 10_000 }))
    expect(driver.started).toEqual(['a', 'a'])
    again.release()
  })

  it('never unloads a pinned slot when idle', async () => {
    const { m, clock } = setup(primary({ unloadAfterMs: 1_000, pinned: true }))
    ;(await clock.run(m.acquire('primary', { ref: 'a', timeoutMs: 10_000 }))).release()
    await clock.advance(10_000)
    expect(m.get('primary').snapshot().state).toBe('idle')
  })
})
