import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelEntry, UpstreamHandle } from '@svc/core'
import { flmStandInCommand, writeFlmProgram } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/contract'
import { createNpuProvider, flmServeArgs } from '../src/npu/npu-provider'
import { createNpuRuntime, NPU_SHARED_KEY } from '../src/npu/npu-runtime'
import { createSharedUpstreams } from '../src/npu/shared-upstreams'
import { createProcessRuntime } from '../src/runtimes/process'
import type { Runtime, RuntimeStartRequest } from '../src/runtimes/runtime'

const provider = createNpuProvider()
const model = (id: string): ModelEntry => ({ id, format: 'npu', provider: 'npu', source: 'catalogue' })
const request = (slot: string, id: string, using: Provider = provider): RuntimeStartRequest => ({
  slot,
  provider: using,
  model: model(id),
  backend: 'npu',
  args: [],
  signal: AbortSignal.timeout(30_000),
})
const post = (base: URL, path: string, body: unknown) =>
  fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

async function waitHealthy(handle: UpstreamHandle): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await provider.healthProbe(handle.base, AbortSignal.timeout(1000)))) {
    if (Date.now() > deadline) throw new Error(`flm stand-in never answered: ${handle.logs().join('\n')}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('NPU slots share one flm serve (process runtime + the FLM stand-in program)', () => {
  let dir: string
  let inner: Runtime
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-npu-'))
    const bin = join(dir, 'bin')
    await writeFlmProgram(bin)
    inner = createProcessRuntime({
      stateDir: join(dir, 'state'),
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      adoptedPollMs: 100,
    })
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('chat, embed and stt slots use one process; a second LLM is refused; the last release stops it', async () => {
    const registry = createSharedUpstreams<RuntimeStartRequest>()
    const runtime = createNpuRuntime(inner, registry)
    const [chat, embed, stt] = await Promise.all([
      runtime.start(request('primary', 'flm-qwen3-4b')),
      runtime.start(request('embed', 'flm-embed-gemma-300m')),
      runtime.start(request('stt', 'flm-whisper-v3-turbo')),
    ])
    await waitHealthy(chat)
    expect(new Set([chat.base.href, embed.base.href, stt.base.href]).size).toBe(1)
    expect(new Set([chat, embed, stt].map((h) => h.describe().pid)).size).toBe(1)
    expect(chat.describe().shared_by).toBe('primary,embed,stt')
    expect(registry.holders(NPU_SHARED_KEY).map((h) => h.owner)).toEqual(['primary', 'embed', 'stt'])

    // Every slot's requests go to the one upstream, each with its own tag; the LLM stays loaded.
    const asked = (id: string) => provider.upstreamModel?.({ model: model(id) })
    const reply = await post(chat.base, '/v1/chat/completions', {
      model: asked('flm-qwen3-4b'),
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(await reply.json()).toMatchObject({ model: 'qwen3:4b' })
    const vectors = await post(embed.base, '/v1/embeddings', {
      model: asked('flm-embed-gemma-300m'),
      input: 'x',
    })
    expect(await vectors.json()).toMatchObject({ data: [{ index: 0 }] })
    const form = new FormData()
    form.set('file', new Blob([new Uint8Array(10)]), 'a.wav')
    form.set('model', asked('flm-whisper-v3-turbo') ?? '')
    const text = await fetch(new URL('/v1/audio/transcriptions', stt.base), { method: 'POST', body: form })
    expect(await text.json()).toEqual({ model: 'whisper-v3:turbo', text: 'stand-in transcript of 10 bytes' })
    expect(await (await fetch(new URL('/api/ps', chat.base))).json()).toMatchObject({
      models: [{ name: 'qwen3:4b' }],
    })

    await expect(runtime.start(request('custom', 'flm-llama3.2-1b'))).rejects.toMatchObject({
      code: 'backend.unavailable',
      message: expect.stringContaining('the NPU is serving qwen3:4b for slot "primary"'),
    })
    const sameTag = await runtime.start(request('chat2', 'flm-qwen3-4b'))
    expect(sameTag.base.href).toBe(chat.base.href)

    await embed.stop(2000)
    await sameTag.stop(2000)
    expect(await embed.exited).toMatchObject({ reason: 'released its share of the upstream' })
    expect(await provider.healthProbe(chat.base, AbortSignal.timeout(1000))).toBe(true)
    await Promise.all([chat.stop(2000), stt.stop(2000)])
    expect(await provider.healthProbe(chat.base, AbortSignal.timeout(1000))).toBe(false)
    expect(registry.holders(NPU_SHARED_KEY)).toEqual([])
  })

  it('when the upstream dies every sharing slot sees it exit, and the next start makes a new one', async () => {
    const runtime = createNpuRuntime(inner)
    const chat = await runtime.start(request('primary', 'flm-qwen3-4b'))
    const stt = await runtime.start(request('stt', 'flm-whisper-v3-turbo'))
    await waitHealthy(chat)
    process.kill(Number(chat.describe().pid), 'SIGKILL')
    const [a, b] = await Promise.all([chat.exited, stt.exited])
    expect(a.signal).toBe('SIGKILL')
    expect(b.signal).toBe('SIGKILL')
    const again = await runtime.start(request('stt', 'flm-whisper-v3-turbo'))
    expect(again.describe().pid).not.toBe(chat.describe().pid)
    await again.stop(2000)
  })

  it('recover removes what a previous svc left on the NPU instead of adopting it', async () => {
    // The process runtime knows its leftovers by /proc cmdline, so run the stand-in without a wrapper.
    const direct: Provider = {
      ...provider,
      startCommand: (ctx) => [...flmStandInCommand(), ...flmServeArgs(ctx)],
    }
    const before = createNpuRuntime(inner)
    const left = await before.start(request('primary', 'flm-qwen3-4b', direct))
    await waitHealthy(left)
    const pid = Number(left.describe().pid)

    const after = createNpuRuntime(inner) // a restarted svc: new registry, same state dir
    const signal = AbortSignal.timeout(10_000)
    const results = await Promise.all([
      after.recover?.('primary', async () => true, signal),
      after.recover?.('stt', async () => true, signal),
    ])
    expect(results).toEqual([undefined, undefined])
    await left.exited
    expect(() => process.kill(pid, 0)).toThrow()
  })
})
