import { mkdtemp, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelEntry } from '@svc/core'
import { isAlive } from '@svc/core/node'
import { FAKE_UPSTREAM_BIN, fakeUpstreamArgs } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { httpOk, type Provider } from '../src/contract'
import { freePort } from '../src/runtimes/free-port'
import { readPidFile, writePidFile } from '../src/runtimes/pid-file'
import { createProcessRuntime } from '../src/runtimes/process'

const model: ModelEntry = { id: 'fake', format: 'gguf', provider: 'llm', source: 'local', path: '/dev/null' }

function fakeProvider(extra: string[] = []): Provider {
  return {
    kind: 'fake',
    backends: ['cpu'],
    endpoints: ['chat'],
    buildEnv: () => ({ FAKE_ENV: 'from-provider' }),
    startCommand: (ctx) => [
      process.execPath,
      FAKE_UPSTREAM_BIN,
      ...fakeUpstreamArgs({ host: ctx.host, port: ctx.port }),
      ...extra,
    ],
    healthProbe: (base, signal) => httpOk(base, '/health', signal),
    requestPath: () => '/v1/chat/completions',
  }
}

function request(provider: Provider) {
  return {
    slot: 'test',
    provider,
    model,
    backend: 'cpu' as const,
    args: [],
    signal: new AbortController().signal,
  }
}

describe('process runtime', () => {
  it('launches on 127.0.0.1, writes a pid file and a log, and stops with SIGTERM', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'svc-proc-'))
    const runtime = createProcessRuntime({ stateDir, env: process.env })
    const handle = await runtime.start(request(fakeProvider()))
    expect(handle.base.hostname).toBe('127.0.0.1')
    expect(await httpOk(handle.base, '/health', AbortSignal.timeout(2_000))).toBe(true)
    const pid = Number(handle.describe().pid)
    expect((await readPidFile(stateDir, 'test'))?.pid).toBe(pid)
    await new Promise((r) => setTimeout(r, 400))
    expect(handle.logs().join('\n')).toContain('fake-upstream listening')
    expect(await readFile(join(stateDir, 'logs', 'test.log'), 'utf8')).toContain('fake-upstream listening')
    await handle.stop(5_000)
    const exit = await handle.exited
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true) // fake-upstream exits 0 on SIGTERM
    await new Promise((r) => setTimeout(r, 50))
    expect(await readPidFile(stateDir, 'test')).toBeUndefined()
  })

  it('kills an upstream that ignores SIGTERM once the grace period is over', async () => {
    const runtime = createProcessRuntime({
      stateDir: await mkdtemp(join(tmpdir(), 'svc-proc-')),
      env: process.env,
    })
    const handle = await runtime.start(request(fakeProvider(['--ignore-sigterm'])))
    const t0 = Date.now()
    await handle.stop(300)
    const exit = await handle.exited
    expect(exit.signal).toBe('SIGKILL')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280)
    expect(exit.reason).toMatch(/was killed by SIGKILL/)
  })

  it('reports how the upstream died, with its last log line', async () => {
    const runtime = createProcessRuntime({
      stateDir: await mkdtemp(join(tmpdir(), 'svc-proc-')),
      env: process.env,
    })
    const handle = await runtime.start(request(fakeProvider(['--crash-after', '1'])))
    await fetch(new URL('/v1/chat/completions', handle.base), { method: 'POST', body: '{}' }).catch(
      () => undefined,
    )
    const exit = await handle.exited
    expect(exit.code).toBe(1)
    expect(exit.reason).toMatch(/exited with code 1/)
  })

  // The free port is probed, released, then bound by the upstream: another process may take it in
  // between. An engine that binds at once dies of the bind error; one that loads its model before it
  // binds (whisper-server) finds the port taken only after that load, while the port already answers,
  // held by someone else: svc must not take it as the upstream's.
  it.each([
    ['binds at once', []],
    ['binds only after loading (1 s)', ['--listen-after-ms', '1000']],
  ])(
    'starts again on another port when its port was taken in the meantime (an upstream that %s)',
    async (_, args) => {
      const taken = createServer()
      await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
      const busy = (taken.address() as { port: number }).port
      const ports = [busy, await freePort()]
      const runtime = createProcessRuntime({
        stateDir: await mkdtemp(join(tmpdir(), 'svc-proc-')),
        pickPort: async () => ports.shift()!,
        env: process.env,
      })
      const handle = await runtime.start(request(fakeProvider(args)))
      try {
        expect(Number(handle.base.port)).not.toBe(busy)
        expect(await httpOk(handle.base, '/health', AbortSignal.timeout(5_000))).toBe(true)
      } finally {
        await handle.stop(2_000)
        taken.close()
      }
    },
  )

  it('names the command to run when the engine is missing', async () => {
    const runtime = createProcessRuntime({
      stateDir: await mkdtemp(join(tmpdir(), 'svc-proc-')),
      env: { PATH: '/nonexistent', HOME: '/nonexistent' },
    })
    const provider = { ...fakeProvider(), startCommand: () => ['llama-server'] }
    await expect(runtime.start(request(provider))).rejects.toThrow(
      'llama-server not found: run "svc engines build llama-server"',
    )
  })

  it('gives the upstream only the environment it needs, never svc secrets or hosted API keys', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-proc-'))
    const envFile = join(dir, 'upstream.env')
    const runtime = createProcessRuntime({
      stateDir: dir,
      env: {
        PATH: process.env.PATH,
        HOME: '/home/svc',
        LANG: 'C.UTF-8',
        HSA_OVERRIDE_GFX_VERSION: '11.5.1',
        GGML_VK_VISIBLE_DEVICES: '0',
        SVC_PROXY_SECRET: 'proxy-secret-value',
        OPENAI_API_KEY: 'sk-hosted-key',
        AWS_SECRET_ACCESS_KEY: 'aws-secret',
      },
    })
    // A wrapper script, as operators write them: it records its environment, then execs the server.
    const wrapped: Provider = {
      ...fakeProvider(),
      startCommand: (ctx) => [
        '/bin/sh',
        '-c',
        'env > "$0"; exec "$@"',
        envFile,
        ...fakeProvider().startCommand(ctx),
      ],
    }
    const handle = await runtime.start(request(wrapped))
    try {
      const seen = Object.fromEntries(
        (await readFile(envFile, 'utf8'))
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      )
      expect(seen).toMatchObject({
        PATH: process.env.PATH,
        HOME: '/home/svc',
        LANG: 'C.UTF-8',
        HSA_OVERRIDE_GFX_VERSION: '11.5.1',
        GGML_VK_VISIBLE_DEVICES: '0',
        FAKE_ENV: 'from-provider',
      })
      for (const secret of ['SVC_PROXY_SECRET', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY']) {
        expect(seen[secret], secret).toBeUndefined()
      }
    } finally {
      await handle.stop(2_000)
    }
  })

  it('after an svc crash, adopts a leftover started through a wrapper (pid file identity, not argv)', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'svc-proc-'))
    // `sh -c 'exec "$@"'`: what runs in the end is not what was started, as with wrapper scripts.
    const wrapped: Provider = {
      ...fakeProvider(),
      startCommand: (ctx) => ['/bin/sh', '-c', 'exec "$@"', 'sh', ...fakeProvider().startCommand(ctx)],
    }
    const first = await createProcessRuntime({ stateDir, env: process.env }).start(request(wrapped))
    const pid = Number(first.describe().pid)
    try {
      // A new svc process over the same state dir: the old one crashed and left its upstream.
      const again = createProcessRuntime({ stateDir, env: process.env })
      const found = await again.recover?.(
        'test',
        (h) => httpOk(h.base, '/health', AbortSignal.timeout(2_000)),
        AbortSignal.timeout(10_000),
      )
      expect(found?.handle.describe().pid).toBe(pid)
      expect(found?.handle.base.href).toBe(first.base.href)
      await found?.handle.stop(2_000)
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false)
    } finally {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    }
  })

  it('never adopts or signals a process that merely reuses the recorded pid', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'svc-proc-'))
    const runtime = createProcessRuntime({ stateDir, env: process.env })
    const handle = await runtime.start(request(fakeProvider()))
    const record = (await readPidFile(stateDir, 'test'))!
    // Same pid and argv, another process start: as if the pid had been recycled.
    await writePidFile(stateDir, { ...record, startTicks: (record.startTicks ?? 0) + 1 })
    try {
      const found = await createProcessRuntime({ stateDir, env: process.env }).recover?.(
        'test',
        async () => true,
        AbortSignal.timeout(10_000),
      )
      expect(found).toBeUndefined()
      expect(isAlive(record.pid)).toBe(true)
    } finally {
      await handle.stop(2_000)
    }
  })
})
