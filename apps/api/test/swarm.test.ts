/**
 * `runtime = "swarm"` end to end: on a one-node swarm this test creates (and leaves), a
 * slot with `replicas = 2` runs the real llama-server image from a local registry (pinned by digest),
 * passes through its states, serves /v1 through svc, survives an svc restart (adopted), and leaves
 * no service behind after unload.
 *
 * The engine is shared with other tests: a swarm is initialised only when the engine is in none, and
 * left only when this test made it; everything removed here carries this test's labels or names.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import {
  type ApiProcess,
  docker,
  encodePng,
  missingPart,
  renderImage,
  runSvc,
  writeTinyGguf,
  writeTinyMmproj,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, collectEvents, type ErrorBody, loadOk, requestLoad, type SlotBody, waitForSlot } from './live'
import { type LlamaImageSetup, setupLlamaImage } from './llama-image'

type Swarmed = SlotBody & { replicas: { url: string; node: string | null; healthy: boolean }[] | null }

// A part the swarm test needs is missing (reported by missingPart: a failure in CI), or an earlier
// test did not get svc going: skipped, never reported as passed.
const MISSING = 'a part this test needs is missing (see the warning above), or svc did not start'

/** Joins a swarm for the test: a new one-node swarm when the engine is in none. */
async function ownSwarm(): Promise<{ leave(): Promise<void> } | undefined> {
  const state = await docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}'])
  if (state.startsWith('active')) {
    if (!state.endsWith('true')) {
      missingPart('a swarm manager', 'this engine is a swarm worker; the test needs a manager')
      return undefined
    }
    return { leave: async () => {} } // someone else's swarm: left as it is
  }
  const networks = (await docker(['network', 'ls', '--format', '{{.Name}}'])).split('\n')
  await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1'])
  return {
    async leave() {
      await docker(['swarm', 'leave', '--force']).catch(() => '')
      // `swarm init` made this bridge; leaving keeps it. Remove it only if it was not there before.
      if (!networks.includes('docker_gwbridge'))
        await docker(['network', 'rm', 'docker_gwbridge']).catch(() => '')
    },
  }
}

async function setup(): Promise<LlamaImageSetup | undefined> {
  let swarm: { leave(): Promise<void> } | undefined
  const setup = await setupLlamaImage({
    name: 'swarm',
    primarySlot:
      'runtime = "swarm"\nbackend = "cpu"\nreplicas = 2\nrestart = "no"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n',
    async removeLeftovers(s) {
      const instance = (await readFile(join(s.stateDir, 'instance-id'), 'utf8').catch(() => '')).trim()
      if (instance) {
        const ids = (
          await docker(['service', 'ls', '-q', '--filter', `label=svc.instance=${instance}`]).catch(() => '')
        )
          .split('\n')
          .filter(Boolean)
        if (ids.length) await docker(['service', 'rm', ...ids]).catch(() => '')
      }
      await swarm?.leave()
      const images = (await docker(['images', '-q', s.repository]).catch(() => ''))
        .split('\n')
        .filter(Boolean)
      if (images.length) await docker(['rmi', '-f', ...new Set(images)]).catch(() => '')
    },
  })
  if (!setup) return undefined
  swarm = await ownSwarm()
  if (!swarm) {
    await setup.cleanup()
    return undefined
  }
  await setup.pinManifest()
  return setup
}

async function servicesOf(s: LlamaImageSetup): Promise<{ id: string; replicas: string }[]> {
  const instance = (await readFile(join(s.stateDir, 'instance-id'), 'utf8')).trim()
  const out = await docker([
    'service',
    'ls',
    '--filter',
    `label=svc.instance=${instance}`,
    '--format',
    '{{.ID}} {{.Replicas}}',
  ])
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', replicas = ''] = line.split(' ')
      return { id, replicas }
    })
}

describe('a slot with runtime = "swarm"', () => {
  let s: LlamaImageSetup | undefined
  let api: ApiProcess | undefined

  beforeAll(async () => {
    s = await setup()
  }, 240_000)
  afterAll(async () => {
    await s?.cleanup()
  }, 120_000)

  it('is offered by the picker because the engine is a swarm manager', async (ctx) => {
    if (!s) return ctx.skip(MISSING)
    api = await s.startApi()
    const hw = await call<{ providers: { llm: { cpu: { ok: boolean; runtimes: string[] } } } }>(
      api,
      '/api/hardware',
    )
    expect(hw.body.providers.llm.cpu).toMatchObject({ ok: true, runtimes: ['container', 'process', 'swarm'] })
  }, 60_000)

  it('passes through pulling, starting, warming to ready with 2 replicas, and serves /v1', async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const watching = await collectEvents(
      api,
      (events) =>
        events.some(
          (e) => e.event === 'slot.transition' && (e.data.to === 'ready' || e.data.to === 'offline'),
        ),
      180_000,
    )
    const loaded = await loadOk(api, 'primary', s.model)
    expect(loaded).toMatchObject({ state: 'ready', runtime: 'swarm', model: 'tiny-chat' })
    const events = await watching.done
    expect(events.filter((e) => e.event === 'slot.transition').map((e) => e.data.to)).toEqual([
      'pulling',
      'starting',
      'warming',
      'ready',
    ])
    const services = await servicesOf(s)
    expect(services).toHaveLength(1)
    // Both replicas run (the swarm may still be starting the second when the first is healthy).
    const deadline = Date.now() + 60_000
    while ((await servicesOf(s))[0]?.replicas !== '2/2' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500))
    expect((await servicesOf(s))[0]?.replicas).toBe('2/2')
    // The slot routes to each task: both show as healthy replicas, on this node, on their own ports.
    const both = await waitForSlot(
      api,
      'primary',
      (x) => (x as Swarmed).replicas?.filter((r) => r.healthy).length === 2,
      30_000,
    )
    const replicas = (both as Swarmed).replicas ?? []
    expect(new Set(replicas.map((r) => r.url)).size).toBe(2)
    for (const r of replicas) expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(replicas.every((r) => r.node !== null)).toBe(true)
    const chats = await Promise.all(
      [1, 2, 3, 4].map(() => sendChat(api!, { model: 'primary', max_tokens: 3 })),
    )
    expect(chats.map((c) => c.status)).toEqual([200, 200, 200, 200])
    const logs = await call<{ lines: string[] }>(api, '/api/slots/primary/logs')
    expect(logs.body.lines.join('\n')).toMatch(/llama|server|model/i) // the service's own logs
  }, 240_000)

  it('survives an svc restart: the service it owns is adopted, not replaced', async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const [before] = await servicesOf(s)
    await api.stop('SIGKILL')
    api = await s.startApi()
    const adopted = await waitForSlot(api, 'primary', (x) => x.state === 'ready', 60_000)
    expect(adopted).toMatchObject({ model: 'tiny-chat', runtime: 'swarm' })
    expect((await servicesOf(s)).map((x) => x.id)).toEqual([before?.id])
    const chat = await sendChat(api, { model: 'tiny-chat', max_tokens: 2 })
    expect(chat.status).toBe(200)
  }, 120_000)

  it('leaves no service and no task container behind after unload', async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const [service] = await servicesOf(s)
    const name = await docker(['service', 'inspect', service!.id, '--format', '{{.Spec.Name}}'])
    const unloaded = await call<SlotBody>(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    expect(unloaded.body.state).toBe('offline')
    expect(await servicesOf(s)).toEqual([])
    expect(await docker(['service', 'inspect', service!.id]).catch(() => 'gone')).toBe('gone')
    expect(await docker(['ps', '-aq', '--filter', `label=svc.swarm-service=${name}`])).toBe('')
  }, 120_000)

  it("at its next start removes the services an older instance id of its state dir left, and names another instance's in svc doctor", async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const image = (await readFile(s.manifest, 'utf8')).match(/digest = "(sha256:[0-9a-f]{64})"/)?.[1]
    // Services as svc labels them, with no task (replicas 0): one this state dir made under an
    // instance id it no longer has, one an install whose state dir is gone made.
    const service = async (name: string, instance: string, home: string) =>
      (
        await docker([
          'service',
          'create',
          '--detach',
          '--no-resolve-image',
          '--replicas',
          '0',
          '--name',
          name,
          '--label',
          'svc.managed=true',
          '--label',
          'svc.runtime=swarm',
          '--label',
          'svc.slot=primary',
          '--label',
          `svc.instance=${instance}`,
          '--label',
          `svc.home=${home}`,
          `${s!.repository}@${image}`,
          'llama-server',
          '--version',
        ])
      ).trim()
    const tag = Math.random().toString(36).slice(2, 8)
    const oldId = await service(`svc-old-${tag}`, '0123456789abcdef', `${hostname()}:${s.stateDir}`)
    const foreign = await service(
      `svc-gone-${tag}`,
      'fedcba9876543210',
      `${hostname()}:${join(s.dir, 'gone')}`,
    )
    try {
      await api.stop('SIGKILL')
      api = await s.startApi()
      await waitForSlot(api, 'primary', (x) => x.state === 'offline', 30_000)
      const deadline = Date.now() + 30_000
      while (
        Date.now() < deadline &&
        (await docker(['service', 'ls', '-q', '--filter', `id=${oldId}`])).trim()
      )
        await new Promise((r) => setTimeout(r, 250))
      expect((await docker(['service', 'ls', '-q', '--filter', `id=${oldId}`])).trim()).toBe('')
      expect((await docker(['service', 'ls', '-q', '--filter', `id=${foreign}`])).trim()).not.toBe('')

      const env = { ...process.env, SVC_STATE_DIR: s.stateDir, SVC_CONFIG_DIR: s.configDir }
      const listed = await runSvc(['doctor', 'containers'], env)
      expect(listed.stdout).toMatch(
        new RegExp(`service\\s+svc-gone-${tag}\\s.*orphan\\s+its state dir .* is gone`),
      )
      await runSvc(['doctor', '--remove-orphans'], env)
      expect((await docker(['service', 'ls', '-q', '--filter', `id=${foreign}`])).trim()).toBe('')
    } finally {
      await docker(['service', 'rm', oldId, foreign]).catch(() => '')
    }
  }, 120_000)

  it('runs a vision model with its projector (kept apart from the model) in every replica', async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const models = dirname(s.model)
    const seeing = await writeTinyGguf(join(models, 'tiny-seeing.gguf'), { role: 'chat', seed: 7 })
    await mkdir(join(models, '..', 'projectors'), { recursive: true })
    const mmproj = await writeTinyMmproj(join(models, '..', 'projectors', 'tiny-mmproj.gguf'), {
      nEmbdText: seeing.nEmbd,
    })
    const r = await requestLoad<SlotBody>(api, 'primary', { model: seeing.path, mmproj: mmproj.path })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    await waitForSlot(
      api,
      'primary',
      (x) => (x as Swarmed).replicas?.filter((rep) => rep.healthy).length === 2,
      60_000,
    )
    const png = encodePng(renderImage(3n, 0, 32, 32)).toString('base64')
    const ask = (withImage: boolean) =>
      call<{ usage: { prompt_tokens: number } }>(api!, '/v1/chat/completions', {
        method: 'POST',
        json: {
          model: 'primary',
          max_tokens: 2,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                ...(withImage
                  ? [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }]
                  : []),
              ],
            },
          ],
        },
      })
    try {
      const plain = await ask(false)
      expect(plain.status).toBe(200)
      // Requests spread over both replicas: each must have loaded the projector.
      const seen = await Promise.all([1, 2, 3, 4].map(() => ask(true)))
      expect(seen.map((x) => x.status)).toEqual([200, 200, 200, 200])
      for (const x of seen)
        expect(x.body.usage.prompt_tokens - plain.body.usage.prompt_tokens).toBe(mmproj.imageTokens)
    } finally {
      // Also after a failure: the next test expects no service of this svc.
      await call(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    }
    expect(await servicesOf(s)).toEqual([])
  }, 240_000)

  it('fails a load no node can take with the swarm reason, and leaves no service', async (ctx) => {
    if (!s || !api) return ctx.skip(MISSING)
    const put = await call(api, '/api/slots/picky', {
      method: 'PUT',
      json: {
        provider: 'llm',
        runtime: 'swarm',
        backend: 'cpu',
        restart: 'no',
        constraints: ['node.labels.svc.gpu==rocm'], // no node of this swarm carries that label
        args: ['-c', '256', '-np', '1', '--threads', '1'],
      },
    })
    expect(put.status).toBe(200)
    const r = await call<ErrorBody>(api, '/api/slots/picky/load?wait=true', {
      method: 'POST',
      json: { model: s.model },
    })
    expect(r.status).toBe(502)
    expect(r.body.error.message).toMatch(/^no swarm node can run picky: pending: no suitable node/)
    const slot = await call<SlotBody>(api, '/api/slots/picky')
    expect(slot.body).toMatchObject({ state: 'offline' })
    expect(slot.body.lastError).toContain('no suitable node')
    expect(await servicesOf(s)).toEqual([])
  }, 120_000)
})
