/**
 * End to end through the API: a real Docker Engine, a local registry, an image made with
 * `docker import` of a rootfs holding the real llama-server, pinned with `svc manifest pin`, pulled by
 * digest by a slot with runtime = "container", served through /v1, killed, adopted, removed.
 */

import { readFile } from 'node:fs/promises'
import { type ApiProcess, docker, skipUnless } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, collectEvents, loadOk, type SlotBody, waitForSlot } from './live'
import { type LlamaImageSetup, setupLlamaImage } from './llama-image'

async function setup(): Promise<LlamaImageSetup | undefined> {
  return setupLlamaImage({
    name: 'containers',
    primarySlot:
      'runtime = "container"\nbackend = "cpu"\nrestart = "no"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n',
    async removeLeftovers(s) {
      const ids = (
        await docker([
          'ps',
          '-aq',
          '--filter',
          'label=svc.slot=primary',
          '--filter',
          `ancestor=${s.repository}:v1`,
        ]).catch(() => '')
      )
        .split('\n')
        .filter(Boolean)
      if (ids.length) await docker(['rm', '-f', ...ids]).catch(() => '')
    },
  })
}

async function containersOf(s: LlamaImageSetup): Promise<{ id: string; labels: Record<string, string> }[]> {
  const ids = (await docker(['ps', '-aq', '--filter', 'label=svc.slot=primary'])).split('\n').filter(Boolean)
  const out = []
  for (const id of ids) {
    const [info] = JSON.parse(await docker(['inspect', id])) as {
      Id: string
      Config: { Image: string; Labels: Record<string, string> }
    }[]
    if (info?.Config.Image.startsWith(s.repository)) out.push({ id: info.Id, labels: info.Config.Labels })
  }
  return out
}

describe('a slot with runtime = "container"', () => {
  let setupDone: LlamaImageSetup | undefined
  let api: ApiProcess | undefined

  beforeAll(async () => {
    setupDone = await setup()
  }, 180_000)
  afterAll(async () => {
    await setupDone?.cleanup()
  })
  /** Loads the slot again on the API the first serving test started; returns it and the container. */
  const loadAgain = async (s: LlamaImageSetup) => {
    if (!api) throw new Error('the API of the previous test is not running (that test failed)')
    await loadOk(api, 'primary', s.model)
    const [container] = await containersOf(s)
    if (!container) throw new Error('the load left no container of this test')
    return { running: api, container }
  }

  it('is pinned with svc manifest pin (comments kept)', async (ctx) => {
    const s = skipUnless(ctx, setupDone)
    expect(await s.pinManifest()).toMatch(/llama-cpu/)
    const text = await readFile(s.manifest, 'utf8')
    expect(text).toMatch(/digest = "sha256:[0-9a-f]{64}"/)
    expect(text).toContain("# the test's image manifest")
  }, 60_000)

  it('pulls by digest with progress, starts, warms, serves /v1, and unload removes the container', async (ctx) => {
    const s = skipUnless(ctx, setupDone)
    api = await s.startApi()
    const watching = await collectEvents(
      api,
      (events) => events.some((e) => e.event === 'slot.transition' && e.data.to === 'ready'),
      120_000,
    )
    await loadOk(api, 'primary', s.model)
    const events = await watching.done
    expect(events.filter((e) => e.event === 'slot.transition').map((e) => e.data.to)).toEqual([
      'pulling',
      'starting',
      'warming',
      'ready',
    ])
    const progress = events.filter((e) => e.event === 'slot.progress').map((e) => e.data)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1)?.done).toBeGreaterThan(0)

    const chat = await sendChat(api, { model: 'primary', max_tokens: 3 })
    expect(chat.status).toBe(200)
    const running = await containersOf(s)
    expect(running).toHaveLength(1)
    const ports = await docker(['port', running[0]!.id])
    expect(ports.trim()).toMatch(/^\d+\/tcp -> 127\.0\.0\.1:\d+$/)

    const unloaded = await call<SlotBody>(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    expect(unloaded.body.state).toBe('offline')
    expect(await containersOf(s)).toHaveLength(0)
  }, 180_000)

  it('goes offline with lastError when the container is killed', async (ctx) => {
    const s = skipUnless(ctx, setupDone)
    const { running, container } = await loadAgain(s)
    await docker(['kill', container.id])
    const down = await waitForSlot(running, 'primary', (x) => x.state === 'offline')
    expect(down.lastError).toBeTruthy()
  }, 120_000)

  it("after a restart, adopts the container it owns and leaves another instance's alone", async (ctx) => {
    const s = skipUnless(ctx, setupDone)
    const { running, container: ours } = await loadAgain(s)
    // A container labelled for this slot by another svc instance (another install on this engine, which
    // may be running: svc doctor names it, no start removes it).
    const foreign = (
      await docker([
        'create',
        '--label',
        'svc.managed=true',
        '--label',
        'svc.slot=primary',
        '--label',
        'svc.instance=0000000000000000',
        `${s.repository}:v1`,
        'llama-server',
        '--version',
      ])
    ).trim()
    await running.stop('SIGKILL') // a crash: nothing is cleaned up
    api = await s.startApi()
    const adopted = await waitForSlot(api, 'primary', (x) => x.state === 'ready', 60_000)
    expect(adopted.upstream?.container).toBeTruthy()
    const left = await containersOf(s)
    expect(left.map((c) => c.id).sort()).toEqual([ours.id, foreign].sort())
    await docker(['rm', '-f', foreign])
    const chat = await sendChat(api, { model: 'tiny-chat', max_tokens: 2 })
    expect(chat.status).toBe(200)
    await call(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    expect(await containersOf(s)).toHaveLength(0)
  }, 120_000)
})
