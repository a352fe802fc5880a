/**
 * Replicas: a remote slot with `urls = [a, b]` over two real llama-servers, routed by least load
 * (`routing = "least-loaded"`; routing by cache is replica-routing.test.ts). Requests go to
 * the replica with the fewest in flight; killing one moves all traffic to the other with no failed
 * request; it rejoins when restarted; the slot is ready while one replica is, offline when none is.
 * Each llama-server answers with its own alias as `model`, which tells which replica served.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  type LlamaServer,
  startApiWithConfig,
  startLlamaServer,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdStream, sendChat } from './chat-requests'
import { call, llamaServerAvailable, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()

interface Replica {
  id: string
  url: string | null
  healthy: boolean
  inflight: number
  latencyMs: number | null
  error: string | null
}
type DuoBody = SlotBody & { replicas: Replica[] | null }

describe.skipIf(!available)('a slot with two replicas', () => {
  let dir: string
  let gguf: string
  const servers: Record<'a' | 'b', LlamaServer | undefined> = { a: undefined, b: undefined }
  const ports = { a: 0, b: 0 }
  let api: ApiProcess

  const start = async (name: 'a' | 'b') => {
    const server = await startLlamaServer({
      model: gguf,
      alias: `tiny-${name}`,
      // Room for the held 5000-token stream: with the default 256 it ends within a moment on a fast
      // machine, and the requests meant to see one replica busy find both free.
      ctxSize: 8192,
      ...(ports[name] ? { extraArgs: ['--port', String(ports[name])] } : {}),
    })
    servers[name] = server
    ports[name] = server.port
  }
  const chat = async () =>
    sendChat<{ model: string; error?: { message: string } }>(api, { model: 'duo', max_tokens: 2 })
  const duo = async () => (await call<DuoBody>(api, '/api/slots/duo')).body
  const replicaOf = (name: 'a' | 'b', body: DuoBody) =>
    body.replicas?.find((r) => r.url === servers[name]?.url)

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-replicas-'))
    gguf = (await writeTinyGguf(join(dir, 'tiny.gguf'), { role: 'chat' })).path
    await Promise.all([start('a'), start('b')])
    api = await startApiWithConfig({
      slots: {
        duo: `enabled = true\nprovider = "llm"\nruntime = "remote"\nurls = ["${servers.a!.url}", "${servers.b!.url}"]\nrestart = "no"\nrouting = "least-loaded"\n`,
      },
    })
    await waitForSlot(api, 'duo', (s) => s.state === 'ready', 30_000)
    // Both replicas healthy (the first round may have found only one).
    const deadline = Date.now() + 30_000
    while ((await duo()).replicas?.filter((r) => r.healthy).length !== 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await Promise.all([servers.a?.stop(), servers.b?.stop()])
    await rm(dir, { recursive: true, force: true })
  })

  it("shows each replica's health and latency in the slot's status", async () => {
    const body = await duo()
    expect(body.state).toMatch(/ready|idle/)
    expect(body.replicas?.map((r) => [r.url, r.healthy])).toEqual([
      [servers.a!.url, true],
      [servers.b!.url, true],
    ])
    for (const r of body.replicas ?? []) expect(r.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('sends each request to the replica with the fewest in flight', async () => {
    const stream = await holdStream(api, { model: 'duo', content: 'go', max_tokens: 5_000 })
    const busy = /"model":"tiny-(a|b)"/.exec(stream.first)?.[1] as 'a' | 'b'
    const free = busy === 'a' ? 'b' : 'a'
    try {
      const during = await duo()
      expect([replicaOf(busy, during)?.inflight, replicaOf(free, during)?.inflight]).toEqual([1, 0])
      for (let i = 0; i < 3; i++) expect((await chat()).body.model).toBe(`tiny-${free}`)
    } finally {
      await stream.stop()
    }
    await waitForSlot(api, 'duo', (s) => s.inflight === 0)
    // With nothing in flight, both take turns.
    const served = new Set<string>()
    for (let i = 0; i < 4; i++) served.add((await chat()).body.model)
    expect([...served].sort()).toEqual(['tiny-a', 'tiny-b'])
  }, 60_000)

  it('moves all traffic to the other replica when one is killed, with no failed request', async () => {
    await servers.b!.stop('SIGKILL')
    // Right away (before any health probe): a refused connection sends the request to the other.
    for (let i = 0; i < 5; i++) {
      const r = await chat()
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.model).toBe('tiny-a')
    }
    const after = await duo()
    expect(after.state).toMatch(/ready|idle|serving/)
    expect(replicaOf('b', after)).toMatchObject({
      healthy: false,
      error: expect.stringMatching(/unreachable|health check/),
    })
    for (let i = 0; i < 5; i++) {
      const r = await chat()
      expect(r.status).toBe(200)
      expect(r.body.model).toBe('tiny-a')
    }
  }, 60_000)

  it('takes the replica back once it is restarted and passes its probe', async () => {
    await start('b')
    await waitForSlot(api, 'duo', (s) => (s as DuoBody).replicas?.every((r) => r.healthy) === true, 15_000)
    const served = new Set<string>()
    for (let i = 0; i < 4; i++) served.add((await chat()).body.model)
    expect([...served].sort()).toEqual(['tiny-a', 'tiny-b'])
  }, 60_000)

  it('goes offline, naming both, when no replica answers', async () => {
    await Promise.all([servers.a!.stop('SIGKILL'), servers.b!.stop('SIGKILL')])
    const down = await waitForSlot(api, 'duo', (s) => s.state === 'offline', 20_000)
    expect(down.lastError).toContain('no replica answers its health check')
    expect(down.lastError).toContain(servers.a!.url)
    expect(down.lastError).toContain(servers.b!.url)
    const refused = await chat()
    expect(refused.status).toBe(409)
  }, 60_000)
})
