/**
 * Replicas on one box with the real process runtime: each replica is a real child process (the fake
 * upstream) that sees only its device through the backend's variable, under its own name (pid file,
 * log), and all stop together.
 */
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelEntry } from '@svc/core'
import { isAlive } from '@svc/core/node'
import { FAKE_UPSTREAM_BIN, fakeUpstreamArgs } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { httpOk, type Provider } from '../src/contract'
import { withLocalReplicas } from '../src/runtimes/local-replicas'
import { readPidFile } from '../src/runtimes/pid-file'
import { createProcessRuntime } from '../src/runtimes/process'

const model: ModelEntry = { id: 'fake', format: 'gguf', provider: 'llm', source: 'local', path: '/dev/null' }

const provider: Provider = {
  kind: 'fake',
  backends: ['cuda'],
  endpoints: ['chat'],
  buildEnv: (ctx) => ({ FAKE_KEY: ctx.apiKey ?? '' }),
  startCommand: (ctx) => [
    process.execPath,
    FAKE_UPSTREAM_BIN,
    ...fakeUpstreamArgs({ host: ctx.host, port: ctx.port }),
  ],
  healthProbe: (base, signal) => httpOk(base, '/health', signal),
  requestPath: () => '/v1/chat/completions',
}

/** The environment a process was started with (Linux). */
async function environOf(pid: number): Promise<Record<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8')
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  )
}

describe.skipIf(process.platform !== 'linux')('replicas on one box, as processes', () => {
  it('starts one process per device, each seeing only its GPU, with one key, and stops them all', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'svc-replicas-proc-'))
    const runtime = withLocalReplicas(createProcessRuntime({ stateDir, env: process.env }))
    const handle = await runtime.start({
      slot: 'primary',
      provider,
      model,
      backend: 'cuda',
      args: [],
      devices: ['cuda:0', 'cuda:1'],
      signal: new AbortController().signal,
    })
    const pids = String(handle.describe().pids).split(' ').map(Number)
    expect(pids).toHaveLength(2)
    const envs = await Promise.all(pids.map(environOf))
    expect(envs.map((e) => e.CUDA_VISIBLE_DEVICES)).toEqual(['0', '1'])
    expect(envs[0]?.FAKE_KEY).toBe(handle.apiKey)
    expect(envs[1]?.FAKE_KEY).toBe(handle.apiKey)
    expect((await readPidFile(stateDir, 'primary.r1'))?.pid).toBe(pids[0])
    expect((await readPidFile(stateDir, 'primary.r2'))?.pid).toBe(pids[1])
    const members = (await handle.members?.(AbortSignal.timeout(1_000))) ?? []
    for (const m of members) expect(await httpOk(m.base, '/health', AbortSignal.timeout(2_000))).toBe(true)
    expect(members.map((m) => m.node)).toEqual(['cuda:0', 'cuda:1'])
    await handle.stop(5_000)
    await handle.exited
    for (const pid of pids) expect(isAlive(pid)).toBe(false)
  })
})
