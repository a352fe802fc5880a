/**
 * Cache-aware routing across a slot's replicas (issue 40), with two real llama-servers as a remote
 * slot's `urls`. Five conversations of three turns, each with its own long system prompt, are sent
 * interleaved (turn 1 of each, then turn 2 of each, …), as a client would: each turn carries the
 * conversation so far, the answers included. Each llama-server answers with its own alias as
 * `model`, which tells which replica served; the prompt tokens each engine really processed come from
 * its own `/metrics` (`llamacpp:prompt_tokens_total`), compared with what one server processes for
 * the same work. Two slots share the two servers: `duo` routes by cache (the default), `spread` by
 * least load.
 */
import { randomBytes } from 'node:crypto'
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
import { call, llamaServerAvailable } from './live'

const available = llamaServerAvailable()

const CONVERSATIONS = 5
const TURNS = 3

interface ChatAnswer {
  model: string
  choices?: { message: { content: string } }[]
  error?: { message: string }
}
interface ReplicaBody {
  id: string
  url: string | null
  healthy: boolean
  routed: Record<'prefix' | 'session' | 'least_loaded', number>
  prefixHits: number
  hitRate: number | null
  lastRoute: string | null
}
interface Message {
  role: string
  content: string
}

/** A ~1,200-character system prompt of its own (words, so it tokenizes like text). */
function systemPrompt(): string {
  const words: string[] = []
  while (words.join(' ').length < 1_200) words.push(randomBytes(4).toString('hex'))
  return `You are assistant ${words[0]}. ${words.join(' ')}`
}

/** Prompt tokens a llama-server has processed so far (its own counter: cached tokens are not counted). */
async function promptTokens(server: LlamaServer): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const line = /^llamacpp:prompt_tokens_total\s+(\S+)/m.exec(text)
  if (!line) throw new Error(`no llamacpp:prompt_tokens_total in ${server.url}/metrics`)
  return Number(line[1])
}

describe.skipIf(!available)('routing a slot’s requests by what its replicas have cached', () => {
  let dir: string
  let gguf: string
  const servers: Record<'a' | 'b' | 'one', LlamaServer | undefined> = {
    a: undefined,
    b: undefined,
    one: undefined,
  }
  let api: ApiProcess

  /** Sends one turn to `url` (svc, or a llama-server directly) and returns who answered. */
  const send = async (
    base: string,
    model: string,
    messages: Message[],
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: ChatAnswer }> => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model, messages, max_tokens: 2, temperature: 0 }),
    })
    return { status: res.status, body: (await res.json()) as ChatAnswer }
  }

  /**
   * Runs CONVERSATIONS × TURNS interleaved against `base` as `model`; returns, per conversation,
   * which model answered each turn.
   */
  const converse = async (base: string, model: string, turns = TURNS, conversations = CONVERSATIONS) => {
    const histories: Message[][] = Array.from({ length: conversations }, () => [
      { role: 'system', content: systemPrompt() },
    ])
    const served: string[][] = histories.map(() => [])
    for (let t = 0; t < turns; t++) {
      for (const [c, history] of histories.entries()) {
        history.push({ role: 'user', content: `question ${t + 1} of conversation ${c + 1}` })
        const { status, body } = await send(base, model, history)
        expect(status, JSON.stringify(body)).toBe(200)
        served[c]!.push(body.model)
        history.push({ role: 'assistant', content: body.choices?.[0]?.message.content ?? '' })
      }
    }
    return served
  }
  const replicas = async (slot: string) =>
    (await call<{ replicas: ReplicaBody[] | null }>(api, `/api/slots/${slot}`)).body.replicas ?? []
  const engineTokens = async () => (await promptTokens(servers.a!)) + (await promptTokens(servers.b!))

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-replica-routing-'))
    gguf = (await writeTinyGguf(join(dir, 'tiny.gguf'), { role: 'chat', contextLength: 8192 })).path
    // Four sequences per server, so each keeps several conversations' prompts in its KV cache.
    const start = (alias: string) =>
      startLlamaServer({ model: gguf, alias, ctxSize: 4 * 4096, extraArgs: ['-np', '4'] })
    ;[servers.a, servers.b, servers.one] = await Promise.all([
      start('tiny-a'),
      start('tiny-b'),
      start('tiny-one'),
    ])
    const urls = `urls = ["${servers.a!.url}", "${servers.b!.url}"]`
    api = await startApiWithConfig({
      slots: {
        duo: `enabled = true\nprovider = "llm"\nruntime = "remote"\n${urls}\nrestart = "no"\n`,
        spread: `enabled = true\nprovider = "llm"\nruntime = "remote"\n${urls}\nrestart = "no"\nrouting = "least-loaded"\n`,
      },
    })
    // Both slots ready with both replicas healthy.
    const deadline = Date.now() + 30_000
    for (const slot of ['duo', 'spread']) {
      while ((await replicas(slot)).filter((r) => r.healthy).length !== 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100))
    }
  }, 90_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await Promise.all([servers.a?.stop(), servers.b?.stop(), servers.one?.stop()])
    await rm(dir, { recursive: true, force: true })
  })

  it('keeps each conversation on one replica, and the engines process at most 1.2× what one server does', async () => {
    const before = await promptTokens(servers.one!)
    await converse(servers.one!.url, 'tiny-one')
    const oneServer = (await promptTokens(servers.one!)) - before

    const routed = await engineTokens()
    const served = await converse(api.url, 'duo')
    const replicated = (await engineTokens()) - routed
    for (const turns of served) expect(new Set(turns).size, JSON.stringify(served)).toBe(1)
    expect(new Set(served.map((t) => t[0])), 'new conversations spread').toEqual(
      new Set(['tiny-a', 'tiny-b']),
    )
    expect(
      replicated,
      `${replicated} prompt tokens over two replicas, ${oneServer} on one`,
    ).toBeLessThanOrEqual(1.2 * oneServer)
    // The slot's status and the metrics say why: follow-up turns found their prefix.
    const status = await replicas('duo')
    const prefix = status.reduce((n, r) => n + r.routed.prefix, 0)
    expect(prefix).toBe(CONVERSATIONS * (TURNS - 1))
    for (const r of status) {
      expect(r.lastRoute).toBe('prefix')
      expect(r.hitRate).toBeGreaterThan(0.5)
    }
    const metrics = (await call<string>(api, '/api/metrics')).body
    const samples = [...metrics.matchAll(/^svc_replica_requests_total\{([^}]*)\} (\d+)/gm)]
      .filter(([, labels]) => labels!.includes('slot="duo"') && labels!.includes('reason="prefix"'))
      .reduce((n, [, , value]) => n + Number(value), 0)
    expect(samples).toBe(prefix)
  }, 120_000)

  it('spreads a conversation over both replicas with least-loaded routing, paying for its prompt again', async () => {
    const routed = await engineTokens()
    const served = await converse(api.url, 'spread')
    const spreadTokens = (await engineTokens()) - routed
    expect(
      served.some((turns) => new Set(turns).size === 2),
      JSON.stringify(served),
    ).toBe(true)
    const before = await promptTokens(servers.one!)
    await converse(servers.one!.url, 'tiny-one')
    const oneServer = (await promptTokens(servers.one!)) - before
    expect(spreadTokens).toBeGreaterThan(1.2 * oneServer)
  }, 120_000)

  it('pins requests with the same X-Session-Id to one replica', async () => {
    const answered = new Set<string>()
    for (let i = 0; i < 4; i++) {
      // A new prompt each time: without the session, these would take turns.
      const { body } = await send(api.url, 'duo', [{ role: 'user', content: systemPrompt() }], {
        'x-session-id': 'pinned-session',
      })
      answered.add(body.model)
    }
    expect(answered.size).toBe(1)
    const unpinned = new Set<string>()
    for (let i = 0; i < 4; i++)
      unpinned.add((await send(api.url, 'duo', [{ role: 'user', content: systemPrompt() }])).body.model)
    expect(unpinned).toEqual(new Set(['tiny-a', 'tiny-b']))
  }, 60_000)

  it('never sends to a replica that stopped, and moves its conversations to the other', async () => {
    const histories: Message[][] = Array.from({ length: 4 }, () => [
      { role: 'system', content: systemPrompt() },
    ])
    const first: string[] = []
    for (const history of histories) {
      history.push({ role: 'user', content: 'first question' })
      const { body } = await send(api.url, 'duo', history)
      first.push(body.model)
      history.push({ role: 'assistant', content: body.choices?.[0]?.message.content ?? '' })
    }
    expect(new Set(first)).toEqual(new Set(['tiny-a', 'tiny-b']))
    await servers.b!.stop('SIGKILL')
    for (let t = 0; t < 2; t++) {
      for (const history of histories) {
        history.push({ role: 'user', content: `question ${t + 2}` })
        const { status, body } = await send(api.url, 'duo', history)
        expect(status, JSON.stringify(body)).toBe(200)
        expect(body.model).toBe('tiny-a')
        history.push({ role: 'assistant', content: body.choices?.[0]?.message.content ?? '' })
      }
    }
    const b = (await replicas('duo')).find((r) => r.url === servers.b!.url)
    expect(b?.healthy).toBe(false)
  }, 60_000)
})
