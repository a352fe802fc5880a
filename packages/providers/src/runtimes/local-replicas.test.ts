import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import { describe, expect, it } from 'vitest'
import type { Provider } from '../contract'
import { deviceEnv, withLocalReplicas } from './local-replicas'
import type { Runtime, RuntimeStartRequest } from './runtime'

/** An inner runtime that records each start and whose upstreams the test ends. */
function fakeRuntime(failing: string[] = []) {
  const starts: RuntimeStartRequest[] = []
  const ends = new Map<string, (e: UpstreamExit) => void>()
  const stopped: string[] = []
  const recovered: string[] = []
  const runtime: Runtime = {
    kind: 'process',
    async start(req) {
      starts.push(req)
      if (failing.includes(req.slot)) throw new Error(`${req.slot} would not start`)
      let end!: (e: UpstreamExit) => void
      const exited = new Promise<UpstreamExit>((r) => {
        end = r
      })
      ends.set(req.slot, end)
      const port = 9000 + starts.length
      return {
        base: new URL(`http://127.0.0.1:${port}`),
        ...(req.apiKey ? { apiKey: req.apiKey } : {}),
        exited,
        describe: () => ({ pid: port }),
        logs: () => [`hello from ${req.slot}`],
        async stop() {
          stopped.push(req.slot)
          end({ code: 0, signal: null, reason: 'stopped' })
        },
      } satisfies UpstreamHandle
    },
    async recover(slot) {
      recovered.push(slot)
      return undefined
    },
  }
  return { runtime, starts, ends, stopped, recovered }
}

const request = (o: Partial<RuntimeStartRequest>): RuntimeStartRequest => ({
  slot: 'primary',
  provider: {} as Provider,
  model: { id: 'm' } as unknown as RuntimeStartRequest['model'],
  backend: 'cuda',
  args: [],
  signal: new AbortController().signal,
  ...o,
})

describe('replicas on one box', () => {
  it('shows each replica only its GPU, through the backend’s own variable', () => {
    expect(deviceEnv('cuda:1')).toEqual({ CUDA_VISIBLE_DEVICES: '1' })
    expect(deviceEnv('rocm:0')).toEqual({ HIP_VISIBLE_DEVICES: '0' })
    expect(deviceEnv('vulkan:2')).toEqual({ GGML_VK_VISIBLE_DEVICES: '2' })
    expect(deviceEnv('cpu')).toBeUndefined()
  })

  it('starts one upstream per device under its own name and one shared key, as members of one handle', async () => {
    const fake = fakeRuntime()
    const handle = await withLocalReplicas(fake.runtime).start(request({ devices: ['cuda:0', 'cuda:1'] }))
    expect(fake.starts.map((s) => [s.slot, s.env])).toEqual([
      ['primary.r1', { CUDA_VISIBLE_DEVICES: '0' }],
      ['primary.r2', { CUDA_VISIBLE_DEVICES: '1' }],
    ])
    expect(new Set(fake.starts.map((s) => s.apiKey)).size).toBe(1)
    expect(handle.apiKey).toBe(fake.starts[0]?.apiKey)
    const signal = new AbortController().signal
    expect(await handle.members?.(signal)).toEqual([
      { id: 'replica-1', base: new URL('http://127.0.0.1:9001'), node: 'cuda:0' },
      { id: 'replica-2', base: new URL('http://127.0.0.1:9002'), node: 'cuda:1' },
    ])
    expect(handle.describe()).toEqual({ replicas: 2, pids: '9001 9002' })
    expect(handle.logs()).toEqual(['[replica-1] hello from primary.r1', '[replica-2] hello from primary.r2'])

    // One exits: it leaves the members; the handle runs on until the last one exits.
    fake.ends.get('primary.r2')?.({ code: null, signal: 'SIGKILL', reason: 'killed' })
    await new Promise((r) => setTimeout(r, 0))
    expect((await handle.members?.(signal))?.map((m) => m.id)).toEqual(['replica-1'])
    let gone: UpstreamExit | undefined
    void handle.exited.then((e) => {
      gone = e
    })
    await handle.stop(1_000)
    expect(fake.stopped).toEqual(['primary.r1', 'primary.r2'])
    await new Promise((r) => setTimeout(r, 0))
    expect(gone?.reason).toContain('every replica exited')
  })

  it('starts a replica that exited again, on its device, with the same key', async () => {
    const fake = fakeRuntime()
    const handle = await withLocalReplicas(fake.runtime).start(request({ devices: ['cuda:0', 'cuda:1'] }))
    fake.ends.get('primary.r2')?.({ code: null, signal: 'SIGKILL', reason: 'killed' })
    await new Promise((r) => setTimeout(r, 1_200))
    expect(fake.starts.map((s) => [s.slot, s.env, s.apiKey === fake.starts[0]?.apiKey])).toEqual([
      ['primary.r1', { CUDA_VISIBLE_DEVICES: '0' }, true],
      ['primary.r2', { CUDA_VISIBLE_DEVICES: '1' }, true],
      ['primary.r2', { CUDA_VISIBLE_DEVICES: '1' }, true],
    ])
    const members = await handle.members?.(new AbortController().signal)
    expect(members?.map((m) => [m.id, m.base.port])).toEqual([
      ['replica-1', '9001'],
      ['replica-2', '9003'],
    ])
    await handle.stop(1_000)
  })

  it('stops the replicas that started when another cannot start, and fails the load with its reason', async () => {
    const fake = fakeRuntime(['primary.r3'])
    const start = withLocalReplicas(fake.runtime).start(request({ backend: 'cpu', replicas: 3 }))
    await expect(start).rejects.toThrow('primary.r3 would not start')
    expect(fake.stopped.sort()).toEqual(['primary.r1', 'primary.r2'])
  })

  it('starts a single upstream as before, and clears replicas a previous run left at recovery', async () => {
    const fake = fakeRuntime()
    const runtime = withLocalReplicas(fake.runtime)
    await runtime.start(request({ backend: 'cpu' }))
    expect(fake.starts.map((s) => [s.slot, s.apiKey, s.env])).toEqual([['primary', undefined, undefined]])
    await runtime.recover?.('primary', async () => true, new AbortController().signal)
    expect(fake.recovered.slice(0, 2)).toEqual(['primary.r1', 'primary.r2'])
    expect(fake.recovered.at(-1)).toBe('primary')
  })
})
