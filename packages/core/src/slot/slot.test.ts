import { describe, expect, it } from 'vitest'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { setup } from '../../test/slot/test-slot'

describe('Slot', () => {
  it('loads a model on disk: offline -> starting -> warming -> ready', async () => {
    const { slot, path, clock } = setup()
    const snap = await clock.run(slot.load(model('a')))
    expect(snap).toMatchObject({ state: 'ready', model: 'a', lastError: null })
    expect(path()).toEqual(['starting', 'warming', 'ready'])
  })

  it('restarts the upstream when the same ref comes with another projector', async () => {
    const { slot, driver, clock } = setup()
    await clock.run(slot.load({ ...model('a'), mmproj: { path: '/p/one.gguf' } }))
    await clock.run(slot.load({ ...model('a'), mmproj: { path: '/p/one.gguf' } }))
    expect(driver.started).toEqual(['a'])
    await clock.run(slot.load({ ...model('a'), mmproj: { path: '/p/two.gguf' } }))
    expect(driver.started).toEqual(['a', 'a'])
  })

  it('pulls first when the model is missing and publishes progress', async () => {
    const { slot, path, bus, driver, clock } = setup()
    driver.missing.add('a')
    const progress: number[] = []
    bus.on('slot.progress', (p) => progress.push(p.done))
    await clock.run(slot.load(model('a')))
    expect(path()).toEqual(['pulling', 'starting', 'warming', 'ready'])
    expect(progress).toEqual([50, 100])
  })

  it('starts exactly one upstream for two concurrent loads of one model', async () => {
    const { slot, driver, clock } = setup()
    const [a, b] = await clock.run(Promise.all([slot.load(model('a')), slot.load(model('a'))]))
    expect(driver.started).toEqual(['a'])
    expect(a.state).toBe('ready')
    expect(b.state).toBe('ready')
    await clock.run(slot.load(model('a')))
    expect(driver.started).toEqual(['a'])
  })

  it('swaps: a load of another model unloads, then loads', async () => {
    const { slot, driver, path, clock } = setup()
    await clock.run(slot.load(model('a')))
    await clock.run(slot.load(model('b')))
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
    const { slot, driver, path, clock } = setup()
    await clock.run(slot.load(model('a')))
    const lease = await slot.acquire({ timeoutMs: 100 })
    const unloading = slot.unload()
    const loading = slot.load(model('a'))
    await clock.advance(20)
    expect(slot.snapshot().state).toBe('unloading')
    lease.release()
    await clock.run(unloading)
    await clock.run(loading)
    expect(path().slice(3)).toEqual(['serving', 'unloading', 'offline', 'starting', 'warming', 'ready'])
    expect(driver.started).toEqual(['a', 'a'])
  })

  it('drives serving and idle with leases', async () => {
    const { slot, path, clock } = setup()
    await clock.run(slot.load(model('a')))
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
    const { slot, driver, clock } = setup({ slot: { drainMs: 50 } })
    await clock.run(slot.load(model('a')))
    await slot.acquire({ timeoutMs: 100 })
    let done = false
    const unloading = slot.unload().then((s) => {
      done = true
      return s
    })
    await clock.advance(49)
    expect(done).toBe(false)
    expect(driver.handles[0]?.stopped).toBe(false)
    await clock.advance(1)
    await unloading
    expect(driver.handles[0]?.stopped).toBe(true)
    expect(slot.snapshot()).toMatchObject({ state: 'offline', inflight: 0, model: null })
  })

  it('announces upstream.stopping with its origin after the drain, before the stop', async () => {
    const { slot, driver, bus, clock } = setup({ slot: { drainMs: 50 } })
    await clock.run(slot.load(model('a')))
    const lease = await slot.acquire({ timeoutMs: 100 })
    const heard: { origins: string[]; inflight: number; stopped: boolean | undefined }[] = []
    bus.on('upstream.stopping', (e) => {
      heard.push({
        origins: e.origins,
        inflight: slot.snapshot().inflight,
        stopped: driver.handles[0]?.stopped,
      })
    })
    const unloading = slot.unload()
    await clock.advance(10)
    expect(heard).toEqual([])
    lease.release()
    await clock.run(unloading)
    expect(heard).toEqual([{ origins: [driver.handles[0]!.base.origin], inflight: 0, stopped: false }])
  })

  it('lets a request wait while warming and get the upstream once ready', async () => {
    const { slot, driver, clock } = setup()
    driver.probesUntilHealthy = 20
    const loading = slot.load(model('a'))
    await clock.advance(1)
    expect(slot.snapshot().state).toBe('warming')
    const lease = await clock.run(slot.acquire({ timeoutMs: 2_000 }))
    expect(lease.model.id).toBe('a')
    expect(slot.snapshot().state).toBe('serving')
    await loading
  })

  it('refuses a lease when nothing is loaded or coming, and times out while pending', async () => {
    const { slot, driver, clock } = setup()
    await expect(slot.acquire({ timeoutMs: 50 })).rejects.toMatchObject({
      code: 'model.not_loaded',
      status: 409,
    })
    driver.neverHealthy = true
    const loading = slot.load(model('a')).catch((e) => e)
    await clock.settle()
    const waiting = slot.acquire({ timeoutMs: 30 })
    await expect(clock.run(waiting)).rejects.toMatchObject({
      code: 'slot.unavailable',
      status: 503,
      headers: { 'Retry-After': '5' },
    })
    expect(clock.now()).toBeLessThan(1_000_000 + 100)
    await clock.run(slot.unload())
    expect(await loading).toMatchObject({ code: 'slot.unavailable' })
  })

  it('stops waiting when the client goes away', async () => {
    const { slot, driver, clock } = setup()
    driver.neverHealthy = true
    void slot.load(model('a')).catch(() => undefined)
    const ac = new AbortController()
    const waiting = slot.acquire({ timeoutMs: 5_000, signal: ac.signal })
    ac.abort(new Error('client gone'))
    await expect(waiting).rejects.toThrow('client gone')
    await clock.run(slot.unload())
  })

  it('fails a load whose upstream never becomes healthy, keeping lastError', async () => {
    const driver = createTestDriver({ warmupTimeoutMs: 30 })
    driver.neverHealthy = true
    const { slot, path, clock } = setup({ driver })
    await expect(clock.run(slot.load(model('a')))).rejects.toThrow(/did not become healthy/)
    expect(slot.snapshot()).toMatchObject({
      state: 'offline',
      lastError: expect.stringMatching(/did not become healthy/),
    })
    expect(driver.handles[0]?.stopped).toBe(true)
    expect(path()).toEqual(['starting', 'warming', 'offline'])
  })

  it('fails a load whose start fails', async () => {
    const { slot, clock } = setup({
      driver: createTestDriver({ failStart: 'llama-server not found; run: svc engines build llama-server' }),
    })
    await expect(clock.run(slot.load(model('a')))).rejects.toThrow(/svc engines build/)
    expect(slot.snapshot()).toMatchObject({
      state: 'offline',
      lastError: expect.stringContaining('svc engines build'),
    })
  })

  it('fails a pending request when the upstream exits while warming', async () => {
    const { slot, driver, clock } = setup()
    driver.probesUntilHealthy = 1000
    const loading = slot.load(model('a')).catch((e) => e)
    await clock.advance(5)
    const waiting = slot.acquire({ timeoutMs: 1_000 }).catch((e) => e)
    driver.handles[0]?.crash('exited with code 1: bad model')
    expect(await clock.run(loading)).toMatchObject({ message: expect.stringContaining('bad model') })
    expect(await waiting).toMatchObject({ code: 'upstream.unavailable' })
  })

  it('goes offline with lastError on a crash and stays there with restart = "no"', async () => {
    const { slot, driver, path, clock } = setup({ config: { restart: 'no' } })
    await clock.run(slot.load(model('a')))
    driver.handles[0]?.crash('killed by SIGKILL')
    await clock.advance(60_000)
    expect(slot.snapshot()).toMatchObject({ state: 'offline', lastError: 'killed by SIGKILL', model: null })
    expect(path().at(-1)).toBe('offline')
    expect(driver.started).toEqual(['a'])
  })

  it('forgets the last error on an unload, and on the next load that succeeds', async () => {
    const { slot, driver, clock } = setup({ config: { restart: 'no' } })
    await clock.run(slot.load(model('a')))
    driver.handles[0]?.crash('killed by SIGKILL')
    await clock.advance(60_000)
    expect(slot.snapshot().lastError).toBe('killed by SIGKILL')
    expect(await clock.run(slot.unload())).toMatchObject({ state: 'offline', lastError: null })
    await clock.run(slot.load(model('a')))
    driver.handles[1]?.crash('killed again')
    await clock.advance(60_000)
    expect(slot.snapshot().lastError).toBe('killed again')
    expect(await clock.run(slot.load(model('a')))).toMatchObject({ state: 'ready', lastError: null })
  })

  it('comes back after a crash with restart = "on-failure"', async () => {
    const { slot, driver, bus, clock } = setup()
    await clock.run(slot.load(model('a')))
    const back = bus.once('slot.transition', (e) => e.to === 'ready')
    driver.handles[0]?.crash()
    await clock.run(back)
    expect(driver.started).toEqual(['a', 'a'])
    expect(slot.snapshot()).toMatchObject({ state: 'ready', model: 'a', restarts: 1 })
  })

  it('cancels a warming load on unload', async () => {
    const { slot, driver, path, clock } = setup()
    driver.probesUntilHealthy = 1000
    const loading = slot.load(model('a')).catch((e) => e)
    await clock.advance(5)
    await clock.run(slot.unload())
    expect(await loading).toMatchObject({
      code: 'slot.unavailable',
      message: expect.stringContaining('cancelled'),
    })
    expect(path()).toEqual(['starting', 'warming', 'unloading', 'offline'])
    expect(driver.handles[0]?.stopped).toBe(true)
  })
})
