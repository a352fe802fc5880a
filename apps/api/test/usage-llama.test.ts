/**
 * The usage ledger and quotas end to end: the real API (a child process, so it can be killed) in
 * front of a real llama-server, called with the official `openai` client through tokens.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { QuotaLimits, Scope } from '@svc/auth'
import { type ApiProcess, startApi, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import OpenAI, { RateLimitError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from './auth-harness'
import { call, llamaServerAvailable } from './live'

const available = llamaServerAvailable()
/** The ledger's write interval in these tests: what a kill -9 may lose. */
const FLUSH_S = 0.5

interface UsageAnswer {
  rows: ({ token: string; requests: number; prompt_tokens: number; completion_tokens: number } & Record<
    string,
    unknown
  >)[]
  totals: { requests: number; total_tokens: number }
}

describe.skipIf(!available)('usage and quotas through the API and llama-server', () => {
  let dir: string
  let gguf: string
  let api: ApiProcess | undefined
  let admin: string
  const configDir = () => join(dir, 'config')
  const mint = (label: string, limits?: QuotaLimits, scope: Scope = 'v1-only') =>
    mintToken(configDir(), { label, scope, ...(limits ? { limits } : {}) })

  async function start(): Promise<ApiProcess> {
    api = await startApi({
      configDir: configDir(),
      stateDir: join(dir, 'state'),
      env: { SVC_AUTH_ENABLED: '1', SVC_USAGE_FLUSH_SECONDS: String(FLUSH_S) },
    })
    return api
  }

  const as = (token: string) => ({ authorization: `Bearer ${token}` })
  const client = (token: string) => new OpenAI({ baseURL: `${api!.url}/v1`, apiKey: token, maxRetries: 0 })
  const usageOf = async (query: string, token = admin) => {
    const r = await call<UsageAnswer>(api!, `/api/usage?${query}`, { headers: as(token) })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body
  }
  const rowOf = async (id: string) => (await usageOf('group_by=token')).rows.find((r) => r.token === id)
  const load = async () => {
    const r = await call(api!, '/api/slots/primary/load?wait=true', {
      method: 'POST',
      json: { model: gguf },
      headers: as(admin),
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
  }
  const chat = (token: string, max_tokens = 3) =>
    client(token).chat.completions.create({
      model: 'primary',
      messages: [{ role: 'user', content: 'Hello there' }],
      max_tokens,
    })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-usage-'))
    await writeSvcConfig(configDir(), {
      slots: {
        primary:
          'backend = "cpu"\nruntime = "process"\nrestart = "no"\nargs = ["-c", "512", "-np", "2", "--threads", "1"]\n',
      },
    })
    gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
    admin = (await mint('admin', undefined, 'admin')).token
    await start()
    await load()
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    // A killed API leaves its llama-server to the next one; the last one's is ended here.
    for (const pid of gguf ? await processesWith(gguf) : []) process.kill(pid, 'SIGKILL')
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it("counts streamed and non-streamed answers with the engine's own token counts", async () => {
    const t = await mint('counted')
    const whole = await chat(t.token, 4)
    const streamed = await client(t.token).chat.completions.create({
      model: 'primary',
      messages: [{ role: 'user', content: 'Count to three' }],
      max_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    })
    let usage: OpenAI.CompletionUsage | undefined
    for await (const chunk of streamed) if (chunk.usage) usage = chunk.usage
    // Without include_usage the engine still says, in llama.cpp's `timings` of the last chunk.
    const bare = await client(t.token).chat.completions.create({
      model: 'primary',
      messages: [{ role: 'user', content: 'Go' }],
      max_tokens: 2,
      stream: true,
    })
    let timings: { prompt_n: number; cache_n?: number; predicted_n: number } | undefined
    for await (const chunk of bare) timings = (chunk as { timings?: typeof timings }).timings ?? timings
    expect(usage && timings).toBeTruthy()
    const prompt =
      whole.usage!.prompt_tokens + usage!.prompt_tokens + timings!.prompt_n + (timings!.cache_n ?? 0)
    const completion = whole.usage!.completion_tokens + usage!.completion_tokens + timings!.predicted_n
    expect(await rowOf(t.id)).toMatchObject({
      token: t.id,
      label: 'counted',
      requests: 3,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    })
    // By slot and model too; and a non-admin token sees only its own rows.
    const bySlot = await usageOf('group_by=slot')
    expect(bySlot.rows.find((r) => r.slot === 'primary')?.requests).toBeGreaterThanOrEqual(3)
    const byModel = await usageOf('group_by=model')
    expect(byModel.rows.map((r) => r.model)).toContain('tiny-chat')
    const reader = await mint('reader', undefined, 'read-only')
    const own = await usageOf('group_by=token', reader.token)
    expect(own.rows).toEqual([])
    const metrics = await call<string>(api!, '/api/metrics')
    expect(metrics.body).toContain(`svc_token_requests_total{token="${t.id}"} 3`)
    expect(metrics.body).toContain(`svc_token_tokens_total{token="${t.id}",kind="completion"} ${completion}`)
    expect(metrics.body).not.toContain('counted') // a label a person typed never reaches Prometheus
  }, 60_000)

  it('answers 429 quota.exceeded at the request past the per-minute limit, with the headers, and recovers after the reset', async () => {
    const t = await mint('rpm', { requests_per_minute: 3 })
    const remaining: string[] = []
    for (let i = 0; i < 3; i++) {
      const { response } = await chat(t.token, 1).withResponse()
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3')
      remaining.push(response.headers.get('x-ratelimit-remaining-requests')!)
    }
    expect(remaining).toEqual(['2', '1', '0'])
    const refused = await chat(t.token, 1).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(RateLimitError)
    const e = refused as RateLimitError
    expect(e.status).toBe(429)
    expect(e.code).toBe('quota.exceeded')
    expect(e.param).toBe('requests_per_minute')
    const retryAfter = Number(e.headers?.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(e.headers?.get('x-ratelimit-remaining-requests')).toBe('0')
    expect(e.headers?.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$/)
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200))
    const { response } = await chat(t.token, 1).withResponse()
    expect(response.status).toBe(200)
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('2')
    // The refused request ran nothing and is not in the ledger.
    expect((await rowOf(t.id))?.requests).toBe(4)
  }, 120_000)

  it('keeps 8 clients at 32 requests at once within the per-minute request limit (exact: counted at admission)', async () => {
    const rpm = 12
    const t = await mint('burst', { requests_per_minute: rpm })
    const clients = Array.from({ length: 8 }, () => client(t.token))
    const statuses: number[] = []
    let inFlight = 0
    let peak = 0
    await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        for (let round = 0; round < 2; round++) {
          inFlight++
          peak = Math.max(peak, inFlight)
          const r = await clients[i % 8]!.chat.completions.create({
            model: 'primary',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 1,
          }).then(
            () => 200,
            (e: { status?: number }) => e.status ?? 0,
          )
          inFlight--
          statuses.push(r)
        }
      }),
    )
    expect(peak).toBe(32)
    const ok = statuses.filter((s) => s === 200).length
    // The bound the docs state: at most the limit plus what was in flight; requests are counted at
    // admission, so it is met exactly.
    expect(ok).toBe(rpm)
    expect(statuses.filter((s) => s === 429).length).toBe(64 - rpm)
    expect((await rowOf(t.id))?.requests).toBe(rpm)
  }, 120_000)

  it('lets tokens per minute pass the limit by at most what the requests in flight use (tokens are known at the end)', async () => {
    // Each request costs the same (same prompt, max_tokens 1, and the tiny model always uses it).
    const probe = await mint('probe')
    const one = (await chat(probe.token, 1)).usage!.total_tokens
    const tpm = one * 3
    const t = await mint('tpm', { tokens_per_minute: tpm })
    const c = client(t.token)
    let inFlight = 0
    let peakAdmitted = 0
    const statuses = await Promise.all(
      Array.from({ length: 32 }, async () => {
        inFlight++
        peakAdmitted = Math.max(peakAdmitted, inFlight)
        const status = await c.chat.completions
          .create({ model: 'primary', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 1 })
          .then(
            () => 200,
            (e: { status?: number }) => e.status ?? 0,
          )
        inFlight--
        return status
      }),
    )
    const used = (await rowOf(t.id))!.prompt_tokens + (await rowOf(t.id))!.completion_tokens
    // The documented bound: the limit plus what the requests admitted before it was reached used.
    expect(used).toBeLessThanOrEqual(tpm + peakAdmitted * one)
    expect(used).toBe(statuses.filter((s) => s === 200).length * one)
    // Once the tokens are in, the next request is refused until the window resets.
    const after = await chat(t.token, 1).catch((e: unknown) => e)
    expect((after as RateLimitError).param).toBe('tokens_per_minute')
  }, 120_000)

  it('holds a per-day limit across a restart of the API', async () => {
    const t = await mint('daily', { tokens_per_day: 20 })
    for (let i = 0; i < 10; i++) {
      const r = await chat(t.token, 4).catch((e: unknown) => e)
      if (r instanceof RateLimitError) break
    }
    const refused = await chat(t.token, 1).catch((e: unknown) => e)
    expect((refused as RateLimitError).param).toBe('tokens_per_day')
    expect((refused as RateLimitError).headers?.get('x-ratelimit-remaining-tokens-day')).toBe('0')
    await api!.stop('SIGTERM')
    await start()
    await load()
    const again = await chat(t.token, 1).catch((e: unknown) => e)
    expect(again).toBeInstanceOf(RateLimitError)
    expect((again as RateLimitError).param).toBe('tokens_per_day')
  }, 120_000)

  it(`keeps the ledger through kill -9, losing at most the last ${FLUSH_S} s of counts`, async () => {
    const t = await mint('crash')
    for (let i = 0; i < 3; i++) await chat(t.token, 1)
    await new Promise((r) => setTimeout(r, FLUSH_S * 1000 * 2 + 200)) // a flush has happened since
    for (let i = 0; i < 2; i++) await chat(t.token, 1)
    await api!.stop('SIGKILL')
    await start() // adopts the llama-server the killed API left
    const after = (await rowOf(t.id))?.requests ?? 0
    expect(after).toBeGreaterThanOrEqual(3)
    expect(after).toBeLessThanOrEqual(5)
  }, 120_000)
})

/** Pids of every process whose command line mentions `text` (the llama-server of this test's model). */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes(text)) pids.push(Number(entry))
  }
  return pids.filter((pid) => pid !== process.pid)
}
