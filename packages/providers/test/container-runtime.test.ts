import { join } from 'node:path'
import type { PullProgress, UpstreamHandle } from '@svc/core'
import { postJson } from '@svc/testing'
import Docker from 'dockerode'
import { afterAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/contract'
import { createLlmProvider } from '../src/llm/llm-provider'
import { createContainerRuntime } from '../src/runtimes/container'
import type { Runtime, RuntimeStartRequest } from '../src/runtimes/runtime'
import { type ContainerFixture, containerFixture } from './container-fixture'

// Real parts: dockerd (started when none answers), Debian's docker-registry, the llama-server build.
// A missing one fails in CI and skips loudly elsewhere.
const fixture = await containerFixture()

describe.skipIf('skip' in fixture)('the container runtime against a real Docker Engine', () => {
  const { manifest, dir, model, run } = fixture as ContainerFixture
  const docker = new Docker()
  // The llm provider, run from the test image for any backend this box has (cpu).
  const provider: Provider = { ...createLlmProvider(), image: () => 'llama-test' }
  const request = (slot: string, extra: Partial<RuntimeStartRequest> = {}): RuntimeStartRequest => ({
    slot,
    provider,
    model,
    backend: 'cpu',
    role: 'chat',
    args: ['-c', '256', '-np', '1', '--threads', '1'],
    signal: AbortSignal.timeout(60_000),
    ...extra,
  })
  const runtime = (
    instance: string,
    extra: { home?: string; othersLive?: () => Promise<number[]> } = {},
  ): Runtime =>
    createContainerRuntime({
      manifest,
      instance,
      home: `test-host:${join(dir, 'state')}`,
      stateDir: join(dir, 'state'),
      labels: { 'svc.test': run },
      docker,
      ...extra,
    })
  const healthy = async (handle: UpstreamHandle, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (await provider.healthProbe(handle.base, AbortSignal.timeout(1000))) return true
      await new Promise((r) => setTimeout(r, 200))
    }
    return false
  }
  afterAll(() => (fixture as ContainerFixture).cleanup())

  it('pulls by digest with progress summed over layers, then has the image', async () => {
    const rt = runtime('aaaaaaaaaaaaaaaa')
    expect(await rt.needsPull?.(request('primary'))).toBe(true)
    const progress: PullProgress[] = []
    await rt.pull?.(request('primary'), (p) => progress.push(p))
    expect(progress.length).toBeGreaterThan(0)
    const last = progress.at(-1)
    expect(last?.total).toBeGreaterThan(1_000_000)
    expect(last?.done).toBe(last?.total)
    expect(await rt.needsPull?.(request('primary'))).toBe(false)
    const info = await docker.getImage(manifest.reference('llama-test')).inspect()
    expect(info.RepoDigests).toContain(manifest.reference('llama-test'))
  })

  it('starts llama-server in a labelled container published on 127.0.0.1 only, serves chat, and stop removes it', async () => {
    const rt = runtime('aaaaaaaaaaaaaaaa')
    const handle = await rt.start(request('primary'))
    expect(await healthy(handle)).toBe(true)
    const id = String(handle.describe().container)
    const info = await docker.getContainer(id).inspect()
    expect(info.Config.Image).toBe(manifest.reference('llama-test'))
    expect(info.Config.Labels).toMatchObject({
      'svc.managed': 'true',
      'svc.instance': 'aaaaaaaaaaaaaaaa',
      'svc.slot': 'primary',
      'svc.model': 'tiny-chat',
      'svc.image': 'llama-test',
      'svc.test': run,
    })
    expect(info.HostConfig.RestartPolicy?.Name).toBe('no')
    expect(info.HostConfig.PortBindings?.['8080/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: '' }])
    expect(info.NetworkSettings.Ports['8080/tcp']?.every((b) => b.HostIp === '127.0.0.1')).toBe(true)
    expect(info.Mounts).toEqual([
      expect.objectContaining({ Source: join(dir, 'models'), Destination: '/models', RW: false }),
    ])
    expect(info.Config.Cmd).toEqual(
      expect.arrayContaining(['-m', '/models/tiny-chat.gguf', '--host', '0.0.0.0']),
    )

    const chat = { model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }
    const url = new URL('/v1/chat/completions', handle.base)
    // The upstream's own key, in its env (never argv), required of every client but svc.
    expect(handle.apiKey).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(info.Config.Env).toContain(`LLAMA_API_KEY=${handle.apiKey}`)
    expect(info.Config.Labels['svc.key-env']).toBe('LLAMA_API_KEY')
    expect(JSON.stringify([info.Config.Cmd, info.Config.Entrypoint])).not.toContain(handle.apiKey)
    expect((await postJson(url, chat)).status).toBe(401)
    const res = await postJson(url, chat, { headers: { authorization: `Bearer ${handle.apiKey}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ object: 'chat.completion', model: 'tiny-chat' })
    expect(handle.logs().join('\n')).toMatch(/listening on http:\/\/0\.0\.0\.0:8080/)

    await handle.stop(5_000)
    expect(await handle.exited).toMatchObject({ reason: expect.stringContaining('llama-server') })
    await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 })
    await handle.stop(5_000) // idempotent
  })

  it('resolves exited when the container is killed, and removes it', async () => {
    const handle = await runtime('aaaaaaaaaaaaaaaa').start(request('primary'))
    expect(await healthy(handle)).toBe(true)
    const id = String(handle.describe().container)
    await docker.getContainer(id).kill()
    const exit = await handle.exited
    expect(exit.code).toBe(137)
    expect(exit.signal).toBe('SIGKILL')
    expect(exit.reason).toMatch(/^llama-server \(container svc-primary-.*\) was killed by SIGKILL/)
    for (let i = 0; i < 50; i++) {
      if (
        await docker
          .getContainer(id)
          .inspect()
          .then(
            () => false,
            () => true,
          )
      )
        break
      await new Promise((r) => setTimeout(r, 100))
    }
    await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 })
  })

  it("recover adopts the healthy container of this instance, removes its unhealthy ones and an older id of its state dir, and never touches another instance's", async () => {
    const mine = await runtime('aaaaaaaaaaaaaaaa').start(request('primary'))
    // Another install on the same engine (its own state dir), serving the same slot name right now.
    const foreign = await runtime('bbbbbbbbbbbbbbbb', { home: 'other-host:/var/lib/svc' }).start(
      request('primary'),
    )
    // What this state dir's svc made under an instance id it no longer has (instance-id removed).
    const oldId = await runtime('cccccccccccccccc').start(request('primary'))
    const other = await runtime('aaaaaaaaaaaaaaaa').start(request('embed'))
    expect(await healthy(mine)).toBe(true)
    expect(await healthy(foreign)).toBe(true)
    const ids = [mine, foreign, oldId, other].map((h) => String(h.describe().container))

    // A restarted svc (same instance id): the primary slot's container comes back.
    const restarted = runtime('aaaaaaaaaaaaaaaa')
    const signal = AbortSignal.timeout(30_000)
    const adopted = await restarted.recover?.('primary', (h) => provider.healthProbe(h.base, signal), signal)
    expect(adopted?.modelId).toBe('tiny-chat')
    expect(adopted?.handle.base.href).toBe(mine.base.href)
    expect(adopted?.handle.describe().container).toBe(ids[0])
    expect(adopted?.handle.apiKey).toBe(mine.apiKey) // read back from the container's env
    // The other install's upstream still runs and serves.
    expect((await docker.getContainer(ids[1] ?? '').inspect()).State.Running).toBe(true)
    expect(await provider.healthProbe(foreign.base, AbortSignal.timeout(2000))).toBe(true)
    await expect(docker.getContainer(ids[2] ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 })

    const unhealthy = await restarted.recover?.('embed', async () => false, signal)
    expect(unhealthy).toBeUndefined()
    await expect(docker.getContainer(ids[3] ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 })

    // The adopted handle is a full handle: logs follow, stop removes.
    expect(adopted?.handle.logs().join('\n')).toContain('listening on')
    await adopted?.handle.stop(5_000)
    await expect(docker.getContainer(ids[0] ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 })
    await foreign.stop(5_000)
  })

  it('recover touches nothing while another svc runs on the same state dir', async () => {
    const theirs = await runtime('aaaaaaaaaaaaaaaa').start(request('primary'))
    const id = String(theirs.describe().container)
    const second = runtime('aaaaaaaaaaaaaaaa', { othersLive: async () => [4242] })
    const signal = AbortSignal.timeout(30_000)
    // Not yet healthy (still loading, as far as the second svc can tell): it is not the second's to remove.
    expect(await second.recover?.('primary', async () => false, signal)).toBeUndefined()
    expect((await docker.getContainer(id).inspect()).State.Running).toBe(true)
    await theirs.stop(5_000)
  })

  it('refuses an image without a digest, naming the entry and svc manifest pin', async () => {
    const rt = runtime('aaaaaaaaaaaaaaaa')
    const unpinned: Provider = { ...provider, image: () => 'unpinned' }
    await expect(rt.start(request('primary', { provider: unpinned }))).rejects.toMatchObject({
      code: 'backend.unavailable',
      message: expect.stringContaining('svc manifest pin unpinned'),
    })
    const imageless: Provider = { ...createLlmProvider(), image: () => undefined }
    await expect(rt.start(request('primary', { provider: imageless }))).rejects.toMatchObject({
      code: 'backend.unavailable',
      message: expect.stringContaining('llm has no container image for cpu'),
    })
  })
})
