import { describe, expect, it } from 'vitest'
import { createEventBus } from '../event-bus'
import { type Clock, type SlotTransitionEvent, type SvcEvents, systemClock } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import { Slot, type SlotOptions } from './slot'
import { createTestDriver, model, type TestDriver } from './test-driver'

function setup(
  options: {
    driver?: TestDriver
    config?: Partial<SlotConfig>
    slot?: Partial<SlotOptions>
    clock?: Clock
  } = {},
) {
  const bus = createEventBus<SvcEvents>()
  const events: SlotTransitionEvent[] = []
  bus.on('slot.transition', (e) => events.push(e))
  const driver = options.driver ?? createTestDriver()
  const config = { ...defaultSlotConfig('primary')!, ...options.config }
  const slot = new Slot({
    config,
    driver,
    bus,
    clock: options.clock ?? systemClock,
    probeIntervalMs: 1,
    drainMs: 200,
    restartBaseDelayMs: 5,
    ...options.slot,
  })
  const path = () => events.map((e) => e.to)
  return { bus, slot, driver, events, path }
}

describe('Slot', () => {
  it('loads a model on disk: offline -> starting -> warming -> ready', async () => {
    const { slot, path } = setup()
    const snap = await slot.load(model('a'))
    expect(snap).toMatchObject({ state: 'ready', model: 'a', lastError: null })
    expect(path()).toEqual(['starting', 'warming', 'ready'])
  })

  it('restarts the upstream when the same ref comes with another projector', async () => {
    const { slot, driver } = setup()
    await slot.load({ ...model('a'), mmproj: { path: '/p/one.gguf' } })
    await slot.load({ ...model('a'), mmproj: { path: '/p/one.gguf' } })
    expect(driver.started).toEqual(['a'])
    await slot.load({ ...model('a'), mmproj: { path: '/p/two.gguf' } })
    expect(driver.started).toEqual(['a', 'a'])
  })

  it('pulls first when the model is missing and publishes progress', async () => {
    const { slot, path, bus, driver } = setup()
    driver.missing.add('a')
    const progress: number[] = []
    bus.on('slot.progress', (p) => progress.push(p.done))
    await slot.load(model('a'))
    expect(path()).toEqual(['pulling', 'starting', 'warming', 'ready'])
    expect(progress).toEqual([50, 100])
  })

  it('starts exactly one upstream for two concurrent loads of one model', async () => {
    const { slot, driver } = setup()
    const [a, b] = await Promise.all([slot.load(model('a')), slot.load(model('a'))])
    expect(driver.started).toEqual(['a'])
    expect(a.state).toBe('ready')
    expect(b.state).toBe('ready')
    await slot.load(model('a'))
    expect(driver.started).toEqual(['a'])
  })

  it('swaps: a load of another model unloads, then loads', async () => {
    const { slot, driver, path } = setup()
    await slot.load(model('a'))
    await slot.load(model('b'))
    expect(driver.started).toEqual(['a', 'b'])
    expect(driver.handles[0]?.stopped).toBe(true)
    expect(path()).toEqual([
      'starting',
      'warming',
      'ready',
      'unloading',
      'offline',
      'starting',
      'warming',
      'ready',
    ])
    expect(slot.snapshot().model).toBe('b')
  })

  it('waits for an in-flight unload, then loads', async () => {
    const { slot, driver, path } = setup()
    await slot.load(model('a'))
    const lease = await slot.acquire({ timeoutMs: 100 })
    const unloading = slot.unload()
    const loading = slot.load(model('a'))
    await new Promise((r) => setTimeout(r, 20))
    expect(slot.snapshot().state).toBe('unloading')
    lease.release()
    await unloading
    await loading
    expect(path().slice(3)).toEqual(['serving', 'unloading', 'offline', 'starting', 'warming', 'ready'])
    expect(driver.started).toEqual(['a', 'a'])
  })

  it('drives serving and idle with leases', async () => {
    const { slot, path } = setup()
    await slot.load(model('a'))
    const l1 = await slot.acquire({ timeoutMs: 100 })
    const l2 = await slot.acquire({ timeoutMs: 100 })
    expect(slot.snapshot()).toMatchObject({ state: 'serving', inflight: 2 })
    l1.release()
    l1.release()
    expect(slot.snapshot()).toMatchObject({ state: 'serving', inflight: 1 })
    l2.release()
    expect(slot.snapshot()).toMatchObject({ state: 'idle', inflight: 0 })
    expect(path().slice(3)).toEqual(['serving', 'idle'])
  })

  it('unload waits for a held lease up to the grace period, then stops anyway', async () => {
    const { slot, driver } = setup({ slot: { drainMs: 50 } })
    await slot.load(model('a'))
    await slot.acquire({ timeoutMs: 100 })
    const t0 = Date.now()
    await slot.unload()
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45)
    expect(driver.handles[0]?.stopped).toBe(true)
    expect(slot.snapshot()).toMatchObject({ state: 'offline', inflight: 0, model: null })
  })

  it('lets a request wait while warming and get the upstream once ready', async () => {
    const { slot, driver } = setup()
    driver.probesUntilHealthy = 20
    const loading = slot.load(model('a'))
    await new Promise((r) => setTimeout(r, 1))
    const lease = await slot.acquire({ timeoutMs: 2_000 })
    expect(lease.model.id).toBe('a')
    expect(slot.snapshot().state).toBe('serving')
    await loading
  })

  it('refuses a lease when nothing is loaded or coming, and times out while pending', async () => {
    const { slot, driver } = setup()
    await expect(slot.acquire({ timeoutMs: 50 })).rejects.toMatchObject({
      code: 'model.not_loaded',
      status: 409,
    })
    driver.neverHealthy = true
    const loading = slot.load(model('a')).catch((e) => e)
    await expect(slot.acquire({ timeoutMs: 30 })).rejects.toMatchObject({
      code: 'slot.unavailable',
      status: 503,
      headers: { 'Retry-After': '5' },
    })
    await slot.unload()
    expect(await loading).toMatchObject({ code: 'slot.unavailable' })
  })

  it('stops waiting when the client goes away', async () => {
    const { slot, driver } = setup()
    driver.neverHealthy = true
    void slot.load(model('a')).catch(() => undefined)
    const ac = new AbortController()
    const waiting = slot.acquire({ timeoutMs: 5_000, signal: ac.signal })
    ac.abort(new Error('client gone'))
    await expect(waiting).rejects.toThrow('client gone')
    await slot.unload()
  })

  it('fails a load whose upstream never becomes healthy, keeping lastError', async () => {
    const driver = createTestDriver({ warmupTimeoutMs: 30 })
    driver.neverHealthy = true
    const { slot, path } = setup({ driver })
    await expect(slot.load(model('a'))).rejects.toThrow(/did not become healthy/)
    expect(slot.snapshot()).toMatchObject({
      state: 'offline',
      lastError: expect.stringMatching(/did not become healthy/),
    })
    expect(driver.handles[0]?.stopped).toBe(true)
    expect(path()).toEqual(['starting', 'warming', 'offline'])
  })

  it('fails a load whose start fails', async () => {
    const { slot } = setup({
      driver: createTestDriver({ failStart: 'llama-server not found; run: svc engines build llama-server' }),
    })
    await expect(slot.load(model('a'))).rejects.toThrow(/svc engines build/)
    expect(slot.snapshot()).toMatchObject({
      state: 'offline',
      lastError: expect.stringContaining('svc engines build'),
    })
  })

  it('fails a pending request when the upstream exits while warming', async () => {
    const { slot, driver } = setup()
    driver.probesUntilHealthy = 1000
    const loading = slot.load(model('a')).catch((e) => e)
    await new Promise((r) => setTimeout(r, 5))
    const waiting = slot.acquire({ timeoutMs: 1_000 }).catch((e) => e)
    driver.handles[0]?.crash('exited with code 1: bad model')
    expect(await loading).toMatchObject({ message: expect.stringContaining('bad model') })
    expect(await waiting).toMatchObject({ code: 'upstream.unavailable' })
  })

  it('goes offline with lastError on a crash and stays there with restart = "no"', async () => {
    const { slot, driver, path } = setup({ config: { restart: 'no' } })
    await slot.load(model('a'))
    driver.handles[0]?.crash('killed by SIGKILL')
    await new Promise((r) => setTimeout(r, 30))
    expect(slot.snapshot()).toMatchObject({ state: 'offline', lastError: 'killed by SIGKILL', model: null })
    expect(path().at(-1)).toBe('offline')
    expect(driver.started).toEqual(['a'])
  })

  it('comes back after a crash with restart = "on-failure"', async () => {
    const { slot, driver, bus } = setup()
    await slot.load(model('a'))
    const back = bus.once('slot.transition', (e) => e.to === 'ready')
    driver.handles[0]?.crash()
    await back
    expect(driver.started).toEqual(['a', 'a'])
    expect(slot.snapshot()).toMatchObject({ state: 'ready', model: 'a', restarts: 1 })
  })

  it('cancels a warming load on unload', async () => {
    const { slot, driver, path } = setup()
    driver.probesUntilHealthy = 1000
    const loading = slot.load(model('a')).catch((e) => e)
    await new Promise((r) => setTimeout(r, 5))
    await slot.unload()
    expect(await loading).toMatchObject({
      code: 'slot.unavailable',
      message: expect.stringContaining('cancelled'),
    })
    expect(path()).toEqual(['starting', 'warming', 'unloading', 'offline'])
    expect(driver.handles[0]?.stopped).toBe(true)
  })
})

/** A clock that moves only when told to. */
function manualClock() {
  let now = 0
  const timers: { at: number; resolve: () => void }[] = []
  const clock: Clock & { advance(ms: number): Promise<void> } = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        const timer = { at: now + ms, resolve }
        timers.push(timer)
        signal?.addEventListener('abort', () => {
          timers.splice(timers.indexOf(timer), 1)
          reject(signal.reason)
        })
      }),
    async advance(ms) {
      now += ms
      for (const t of timers.filter((x) => x.at <= now)) {
        timers.splice(timers.indexOf(t), 1)
        t.resolve()
      }
      for (let i = 0; i < 20; i++) await Promise.resolve()
      await new Promise((r) => setTimeout(r, 5))
    },
  }
  return clock
}

describe('Slot restart policy', () => {
  it('backs off exponentially and gives up after max_restarts', async () => {
    const clock = manualClock()
    const driver = createTestDriver({ probesUntilHealthy: 0 })
    const { slot, bus } = setup({
      driver,
      clock,
      config: { maxRestarts: 3 },
      slot: { restartBaseDelayMs: 1_000 },
    })
    const restarts: number[] = []
    bus.on('slot.restart', (e) => restarts.push(e.delayMs))
    await slot.load(model('a'))
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
    const { slot } = setup({ driver, slot: { restartBaseDelayMs: 20 } })
    await slot.load(model('a'))
    driver.handles[0]?.crash()
    await new Promise((r) => setTimeout(r, 1))
    await slot.unload()
    await new Promise((r) => setTimeout(r, 60))
    expect(driver.started).toEqual(['a'])
    expect(slot.snapshot().state).toBe('offline')
  })
})
