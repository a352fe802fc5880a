/**
 * Two svc instances on one Docker engine and one config dir, loading and recovering at the same time:
 * neither loses an upstream, a token or a registry entry. Real parts: Docker Engine, a local
 * registry, the real llama-server in an image pinned by digest, the API as child processes.
 *
 * Who shares what: two installs (a test suite beside an installed svc, or two checkouts) have their
 * own state dirs, hence instance ids, on one engine; the installed service and a `pnpm start` on the
 * same box resolve to the very same config and state dirs (one instance id, two processes).
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type ApiProcess, docker, encodeGguf, skipUnless, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, type SlotBody, waitForSlot } from './live'
import { type LlamaImageSetup, setupLlamaImage } from './llama-image'

const SLOT =
  'runtime = "container"\nbackend = "cpu"\nrestart = "no"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n'

let setup: LlamaImageSetup | undefined
const others: ApiProcess[] = []

beforeAll(async () => {
  setup = await setupLlamaImage({
    name: 'twins',
    primarySlot: SLOT,
    async removeLeftovers(s) {
      const ids = (await docker(['ps', '-aq', '--filter', `ancestor=${s.repository}:v1`]).catch(() => ''))
        .split('\n')
        .filter(Boolean)
      if (ids.length) await docker(['rm', '-f', ...ids]).catch(() => '')
    },
  })
  if (!setup) return
  await setup.pinManifest()
  // Both load the default at start-up: each one's load runs while the other recovers.
  await writeFile(
    join(setup.configDir, 'slots', 'primary.toml'),
    `enabled = true\n${SLOT}[model]\ndefault = "${setup.model}"\n`,
  )
}, 300_000)
afterAll(async () => {
  for (const api of others) await Promise.resolve(api[Symbol.asyncDispose]()).catch(() => undefined)
  await setup?.cleanup()
})

/** The containers of this test's image (short ids, as the slot shows them), with the instance that labelled each. */
async function upstreams(s: LlamaImageSetup): Promise<{ id: string; instance: string; running: boolean }[]> {
  const ids = (await docker(['ps', '-aq', '--no-trunc', '--filter', 'label=svc.slot=primary']))
    .split('\n')
    .filter(Boolean)
  const out = []
  for (const id of ids) {
    const [info] = JSON.parse(await docker(['inspect', id])) as {
      Id: string
      State: { Running: boolean }
      Config: { Image: string; Labels: Record<string, string> }
    }[]
    if (info?.Config.Image.startsWith(s.repository))
      out.push({
        id: info.Id.slice(0, 12),
        instance: info.Config.Labels['svc.instance'] ?? '',
        running: info.State.Running,
      })
  }
  return out
}

const ready = (api: ApiProcess) => waitForSlot(api, 'primary', (x) => x.state === 'ready', 180_000)
const containerOf = (slot: SlotBody) => String(slot.upstream?.container ?? '')

describe('two svc instances on one Docker engine and one config dir', () => {
  let a: ApiProcess | undefined
  let b: ApiProcess | undefined
  let c: ApiProcess | undefined

  it("two installs start at once: each loads its own upstream, and neither removes the other's", async (ctx) => {
    const s = skipUnless(ctx, setup)
    const stateB = join(s.dir, 'state-b')
    ;[a, b] = await Promise.all([
      s.startApi(),
      startApi({ configDir: s.configDir, stateDir: stateB, env: { SVC_IMAGES_MANIFEST: s.manifest } }),
    ])
    others.push(b)
    const [slotA, slotB] = await Promise.all([ready(a), ready(b)])
    expect(containerOf(slotA)).not.toBe(containerOf(slotB))
    const running = await upstreams(s)
    expect(running.filter((u) => u.running)).toHaveLength(2)
    expect(new Set(running.map((u) => u.instance)).size).toBe(2)
    for (const api of [a, b])
      expect((await sendChat(api, { model: 'primary', max_tokens: 2 })).status).toBe(200)
  }, 400_000)

  it('one crashes and comes back while the other loads again: it adopts its own, the other keeps its new one', async (ctx) => {
    const s = skipUnless(ctx, setup)
    if (!a || !b) throw new Error('the APIs of the previous test are not running (that test failed)')
    const before = containerOf((await call<SlotBody>(a, '/api/slots/primary')).body)
    await a.stop('SIGKILL') // a crash: its container is left for its next start
    await call(b, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    // B's load (a container that is not healthy yet) runs while A starts and recovers.
    const [restarted] = await Promise.all([
      s.startApi(),
      call(b, '/api/slots/primary/load', { method: 'POST', json: {} }),
    ])
    a = restarted
    const [slotA, slotB] = await Promise.all([ready(a), ready(b)])
    expect(containerOf(slotA)).toBe(before)
    const left = await upstreams(s)
    expect(left.map((u) => u.id).sort()).toEqual([containerOf(slotA), containerOf(slotB)].sort())
    for (const api of [a, b])
      expect((await sendChat(api, { model: 'primary', max_tokens: 2 })).status).toBe(200)
  }, 400_000)

  it("a second svc on the same config and state dir (the service and a pnpm start) touches nothing of the first's", async (ctx) => {
    const s = skipUnless(ctx, setup)
    if (!a || !b) throw new Error('the APIs of the previous tests are not running (those tests failed)')
    const ofA = containerOf((await call<SlotBody>(a, '/api/slots/primary')).body)
    const ofB = containerOf((await call<SlotBody>(b, '/api/slots/primary')).body)
    c = await s.startApi() // same state dir as A: the same instance id
    const slotC = await ready(c)
    expect(containerOf(slotC)).not.toBe(ofA)
    const ids = (await upstreams(s)).filter((u) => u.running).map((u) => u.id)
    expect(ids).toEqual(expect.arrayContaining([ofA, ofB, containerOf(slotC)]))
    for (const api of [a, b, c])
      expect((await sendChat(api, { model: 'primary', max_tokens: 2 })).status).toBe(200)
  }, 400_000)

  it('tokens created through all of them at once all survive', async (ctx) => {
    skipUnless(ctx, setup)
    if (!a || !b || !c) throw new Error('the APIs of the previous tests are not running (those tests failed)')
    const apis = [a, b, c]
    const created = await Promise.all(
      Array.from({ length: 18 }, (_, i) =>
        call<{ id: string }>(apis[i % 3] as ApiProcess, '/api/auth/tokens', {
          method: 'POST',
          json: { label: `twin ${i}`, scope: 'read-only' },
        }),
      ),
    )
    expect(created.map((r) => r.status)).toEqual(created.map(() => 201))
    const ids = created.map((r) => r.body.id)
    for (const api of apis) {
      const listed = await call<{ tokens: { id: string }[] }>(api, '/api/auth/tokens')
      expect(listed.body.tokens.map((t) => t.id)).toEqual(expect.arrayContaining(ids))
    }
  }, 120_000)

  it('models registered through both svc processes of one state dir at once all survive', async (ctx) => {
    const s = skipUnless(ctx, setup)
    if (!a || !c) throw new Error('the APIs of the previous tests are not running (those tests failed)')
    // A load registers the model file it names once the slot has accepted it, then attaches the
    // projector: a projector that is not there is refused right after (400), so no upstream starts.
    const files = Array.from({ length: 12 }, (_, i) => join(s.dir, 'models', `twin-${i}.gguf`))
    for (const f of files) await writeFile(f, encodeGguf(new Map(), [])) // a GGUF header, no tensors
    const pair = [a, c]
    const missing = join(s.dir, 'models', 'no-such-projector.gguf')
    const answers = await Promise.all(
      files.map((model, i) =>
        call(pair[i % 2] as ApiProcess, '/api/slots/primary/load', {
          method: 'POST',
          json: { model, mmproj: missing },
        }),
      ),
    )
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 400))
    const registry = JSON.parse(await readFile(join(s.stateDir, 'models', 'registry.json'), 'utf8')) as {
      models: { id: string; path?: string }[]
    }
    expect(registry.models.map((m) => m.path)).toEqual(expect.arrayContaining(files))
  }, 120_000)
})
