import { join } from 'node:path'
import {
  createEventBus,
  defaultSlotConfig,
  Slot,
  type SlotConfig,
  type SlotProgressEvent,
  type SlotTransitionEvent,
  type SvcEvents,
  systemClock,
} from '@svc/core'
import { postJson } from '@svc/testing'
import Docker from 'dockerode'
import { afterAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/contract'
import { createLlmProvider } from '../src/llm/llm-provider'
import { ModelStore } from '../src/models/model-store'
import { createSlotDriver } from '../src/provider-driver'
import { createContainerRuntime } from '../src/runtimes/container'
import { type ContainerFixture, containerFixture } from './container-fixture'

// The container runtime as a drop-in Runtime under the real slot driver and Slot (the API's path,
// minus HTTP): pulling → starting → warming → ready, crash → offline, restart → adopt, unload → gone.
const fixture = await containerFixture()

describe.skipIf('skip' in fixture)('a slot with runtime = "container"', () => {
  const { manifest, dir, model, run } = fixture as ContainerFixture
  const docker = new Docker()
  const provider: Provider = { ...createLlmProvider(), image: () => 'llama-test' }
  const config: SlotConfig = {
    ...(defaultSlotConfig('primary') as SlotConfig),
    backend: 'cpu',
    runtime: 'container',
    restart: 'no',
    args: ['-c', '256', '-np', '1', '--threads', '1'],
  }
  const ours = () => docker.listContainers({ all: true, filters: { label: [`svc.test=${run}`] } })
  afterAll(() => (fixture as ContainerFixture).cleanup())

  async function makeSlot() {
    const models = await ModelStore.open({ stateDir: join(dir, 'state'), catalogue: [] })
    const entry = await models.resolve(model.path ?? '')
    const runtime = createContainerRuntime({
      manifest,
      instance: 'cccccccccccccccc',
      stateDir: join(dir, 'state'),
      labels: { 'svc.test': run },
      docker,
    })
    const driver = createSlotDriver({ config, provider, runtime, models, backend: 'cpu' })
    const bus = createEventBus<SvcEvents>()
    const transitions: SlotTransitionEvent[] = []
    const progress: SlotProgressEvent[] = []
    bus.on('slot.transition', (e) => transitions.push(e))
    bus.on('slot.progress', (e) => progress.push(e))
    const slot = new Slot({
      config,
      driver,
      bus,
      clock: systemClock,
      stopGraceMs: 5_000,
      probeIntervalMs: 100,
    })
    return { slot, entry, bus, transitions, progress }
  }

  it('pulls with progress, starts, warms, serves chat, survives an svc restart, and goes offline when killed', async () => {
    const first = await makeSlot()
    const ready = await first.slot.load(first.entry)
    expect(ready).toMatchObject({ state: 'ready', model: 'tiny-chat', runtime: 'container' })
    expect(first.transitions.map((t) => t.to)).toEqual(['pulling', 'starting', 'warming', 'ready'])
    expect(first.progress.length).toBeGreaterThan(0)
    expect(first.progress.at(-1)?.done).toBe(first.progress.at(-1)?.total)

    const lease = await first.slot.acquire({ timeoutMs: 5_000 })
    // The lease carries the upstream's own key, which the dispatcher sends as a bearer.
    expect(lease.apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const res = await postJson(
      new URL('/v1/chat/completions', lease.base),
      { model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 },
      { headers: { authorization: `Bearer ${lease.apiKey}` } },
    )
    expect(res.status).toBe(200)
    lease.release()
    const container = String(ready.upstream?.container)

    // svc restarts (the old Slot object is simply dropped): the new one adopts the same container.
    const second = await makeSlot()
    await second.slot.recover()
    expect(second.slot.snapshot()).toMatchObject({ state: 'ready', model: 'tiny-chat' })
    expect(second.slot.snapshot().upstream?.container).toBe(container)
    expect((await ours()).map((c) => c.Id.slice(0, 12))).toEqual([container])

    const offline = second.bus.once('slot.transition', (e) => e.to === 'offline')
    await docker.getContainer(container).kill()
    expect(await offline).toMatchObject({ error: expect.stringContaining('was killed by SIGKILL') })
    expect(second.slot.snapshot()).toMatchObject({
      state: 'offline',
      lastError: expect.stringContaining('llama-server'),
    })
    // Docker removes a killed container after it exits (svc's removal allows 15 s).
    await expect.poll(async () => (await ours()).length, { timeout: 20_000 }).toBe(0)
  })

  it('loads without pulling once the image is present, and unload removes the container', async () => {
    const { slot, entry, transitions } = await makeSlot()
    await slot.load(entry)
    expect(transitions.map((t) => t.to)).toEqual(['starting', 'warming', 'ready'])
    expect((await ours()).length).toBe(1)
    await slot.unload()
    expect(slot.snapshot().state).toBe('offline')
    expect(await ours()).toEqual([])
  })
})
