/**
 * The build (`pnpm build`: apps/api/dist/serve.js, apps/cli/dist/svc.js) is what users and the
 * installed services run. These run it for real: no TypeScript loader anywhere, a real llama-server
 * streaming through it with auth on, and SIGTERM still draining and stopping the upstream.
 * (`SVC_TEST_BUILT=1` runs every test that uses `startApi` against the build too.)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore } from '@svc/auth'
import { isAlive } from '@svc/core/node'
import {
  BUILT_ENTRIES,
  ensureBuilt,
  LISTENING,
  loopbackEnv,
  startApi,
  startServerProcess,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { streamChat } from './chat-requests'
import { llamaServerAvailable } from './live'

const available = llamaServerAvailable()

beforeAll(async () => {
  await ensureBuilt('api', 'cli')
}, 120_000)

/** A process's arguments and its children's pids, from /proc. */
async function processInfo(pid: number): Promise<{ argv: string[]; children: number[] }> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean)
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => ''))
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
  return { argv, children }
}

describe.skipIf(!available)('the built API', () => {
  it('runs with no TypeScript loader and streams a real llama-server through auth', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'svc-built-config-'))
    await writeSvcConfig(configDir, {
      slots: {
        primary: 'runtime = "process"\nbackend = "cpu"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n',
      },
    })
    const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
    const { token } = await store.create({ label: 'built', scope: 'admin' })
    await store.close()
    const gguf = await writeTinyGguf(join(configDir, 'tiny-chat.gguf'), { role: 'chat' })
    await using api = await startApi({ configDir, built: true, env: { SVC_AUTH_ENABLED: '1' } })
    try {
      const { argv } = await processInfo(api.child.pid!)
      expect(argv.slice(1)).toEqual([BUILT_ENTRIES.api])

      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const anonymous = await fetch(`${api.url}/v1/chat/completions`, { method: 'POST', body: '{}' })
      expect(anonymous.status).toBe(401)
      const load = await fetch(`${api.url}/api/slots/primary/load?wait=true`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ model: gguf.path }),
      })
      expect(load.status, await load.clone().text()).toBe(200)

      const res = await streamChat(
        api,
        { model: 'primary', content: 'hello', max_tokens: 8 },
        { headers: auth },
      )
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
      const events = (await res.text()).split('\n\n').filter((e) => e.startsWith('data:'))
      expect(events.length).toBeGreaterThan(8) // a chunk per token, then [DONE]
      expect(events.at(-1)).toBe('data: [DONE]')

      // Its children are the upstream and the shell the next upstream will start from (the process
      // runtime's launcher, docs/operations.md): tsx would have started an esbuild service beside them.
      const slot = (await (await fetch(`${api.url}/api/slots/primary`, { headers: auth })).json()) as {
        upstream: { pid: number }
      }
      const { children } = await processInfo(api.child.pid!)
      const others = children.filter((pid) => pid !== slot.upstream.pid)
      expect(children).toContain(slot.upstream.pid)
      expect(await Promise.all(others.map(async (pid) => (await processInfo(pid)).argv))).toEqual(
        others.map(() => ['/bin/sh', '-s']),
      )
      expect(others.length).toBeLessThanOrEqual(1)

      expect(await api.stop()).toBe(0)
      expect(api.output()).toContain('"msg":"stopped"')
      expect(isAlive(slot.upstream.pid)).toBe(false)
      // The waiting shell reads a pipe from the API: it ends with it.
      const deadline = Date.now() + 5_000
      while (others.some((pid) => isAlive(pid)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20))
      expect(others.filter((pid) => isAlive(pid))).toEqual([])
    } finally {
      await rm(configDir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the built CLI', () => {
  it('svc serve runs the API in its own process (what svc-api.service runs) and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-built-serve-'))
    await using serve = await startServerProcess({
      command: process.execPath,
      args: [BUILT_ENTRIES.cli, 'serve'],
      spawn: { env: { PATH: process.env.PATH ?? '', HOME: dir, ...loopbackEnv(dir) } },
      ready: LISTENING.api,
      what: 'svc serve',
      timeoutMs: 30_000,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    })
    expect(((await (await fetch(`${serve.url}/api/status`)).json()) as { status: string }).status).toBe('ok')
    // Idle, it has loaded no native addon: SQLite (the usage ledger) and argon2 wait for first use.
    const maps = await readFile(`/proc/${serve.pid}/maps`, 'utf8')
    expect(maps.match(/\S+\.node$/gm) ?? []).toEqual([])
    // No wrapper: the process systemd started is the server.
    expect((await processInfo(serve.pid)).children).toEqual([])
    expect(await serve.stop()).toBe(0)
    expect(serve.output()).toContain('"msg":"stopped"')
  }, 60_000)
})

describe('the API bundle', () => {
  it('is ASCII and leaves out what svc loads only on first use (V8 keeps a bundle\u2019s source for good)', async () => {
    const text = await readFile(BUILT_ENTRIES.api, 'utf8')
    // One character outside Latin-1 would make V8 keep the whole source at two bytes a character.
    expect(text.match(/[\u0080-\uffff]/g) ?? []).toEqual([])
    // ssh2 (ssh:// Docker hosts) and grpc (BuildKit sessions) are required from node_modules when used.
    expect(text).not.toMatch(/node_modules\/ssh2\/lib\/client\.js/)
    expect(text).not.toMatch(/@grpc\/grpc-js/)
    // undici (the upstream connections) waits for the first relayed request: an idle API relays nothing.
    expect(text).not.toMatch(/node_modules\/undici\/lib\//)
    // Nor do the Hugging Face Hub's clients and their task tables (~0.4 MB): only a Hub name, a Hub
    // search or a GGUF's quantization label needs them.
    expect(text).not.toMatch(/@huggingface\/tasks\/dist\//)
    expect(text).not.toMatch(/@huggingface\/(hub|gguf)\/dist\/index\.mjs/)
    expect(text.length).toBeLessThan(2_000_000)
  })
})
