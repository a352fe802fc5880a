/**
 * Slots that manage themselves, end to end against real llama-server and the official `openai`
 * client: one slot with `load_on_request` and two tiny GGUF refs A and B. Requests name either ref;
 * svc loads, swaps without thrashing, queues (429 beyond `max_queue`), shows streamed requests that
 * the model is loading (SSE comment lines), and unloads after `unload_after`.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import type OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdStream, openaiClient, streamChat } from './chat-requests'
import { call, type ErrorBody, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()
// The model's own 32k context (no -c): a long answer keeps a request in flight for seconds.
const ARGS = ['-np', '1', '--threads', '1']
const SWAP_WAIT_S = 2

/**
 * The slot file's keys as `PUT /api/slots/primary` takes them. One model at a time (`max_loaded = 1`):
 * these tests are about the swap and its queue; two at once is spare-slots.test.ts.
 */
function primary(extra: Record<string, unknown> = {}) {
  return {
    args: ARGS,
    restart: 'no',
    load_on_request: true,
    max_swap_wait: `${SWAP_WAIT_S}s`,
    max_loaded: 1,
    ...extra,
  }
}

/** `svc_slot_auto_total` for primary's loads on request, from `/api/metrics`. */
async function loadsOnRequest(api: ApiProcess): Promise<number> {
  const text = (await call<string>(api, '/api/metrics')).body
  const line = String(text)
    .split('\n')
    .find(
      (l) =>
        l.startsWith('svc_slot_auto_total{') && l.includes('action="load"') && l.includes('slot="primary"'),
    )
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe.skipIf(!available)('slots that load on request, swap, queue and unload by themselves', () => {
  let dir: string
  let api: ApiProcess
  let client: OpenAI
  const refs = { a: 'tiny-a', b: 'tiny-b' }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-self-'))
    const a = await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', contextLength: 32_768 })
    await copyFile(a.path, join(dir, 'tiny-b.gguf'))
    api = await startApiWithConfig({
      slots: { primary: `args = ${JSON.stringify(ARGS)}\nrestart = "no"\n` },
    })
    // Loading each file once registers its ref (tiny-a, tiny-b): both are known refs from here on.
    await loadOk(api, 'primary', join(dir, 'tiny-b.gguf'))
    await loadOk(api, 'primary', a.path)
    client = openaiClient(api)
  }, 90_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('answers model.not_loaded for a ref no slot holds while load on request is off (the default)', async () => {
    const refused = await call<ErrorBody>(api, '/v1/chat/completions', {
      method: 'POST',
      json: { model: refs.b, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('model.not_loaded')
  })

  it('loads the ref each request names: alternating A and B all succeed through openai', async () => {
    expect((await call(api, '/api/slots/primary', { method: 'PUT', json: primary() })).status).toBe(200)
    const answers: string[] = []
    for (const model of [refs.b, refs.a, refs.b, refs.a]) {
      const done = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 2,
      })
      answers.push(done.model.includes('tiny') ? 'ok' : done.model)
    }
    expect(answers).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect((await call<SlotBody>(api, '/api/slots/primary')).body.model).toBe(refs.a)
  }, 90_000)

  it('serves 20 concurrent requests mixed A/B with at most 2 swaps per swap window', async () => {
    const before = await loadsOnRequest(api)
    const started = Date.now()
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        client.chat.completions.create({
          model: i % 2 ? refs.b : refs.a,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 2,
        }),
      ),
    )
    const seconds = (Date.now() - started) / 1000
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    const swaps = (await loadsOnRequest(api)) - before
    expect(swaps).toBeGreaterThanOrEqual(1)
    expect(swaps).toBeLessThanOrEqual(2 * Math.ceil(seconds / SWAP_WAIT_S))
  }, 120_000)

  it('shows a streamed request the load as SSE comment lines, and openai parses the same stream cleanly', async () => {
    await waitForSlot(api, 'primary', (s) => s.model === refs.b || s.model === refs.a)
    const held = (await call<SlotBody>(api, '/api/slots/primary')).body.model
    const other = held === refs.a ? refs.b : refs.a
    const res = await streamChat(api, { model: other, max_tokens: 3 })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    const text = await res.text()
    // The first line says what happens first: the model held now goes (not its state under the new name).
    expect(text.split('\n')[0]).toBe(`: loading ${other}… (swapping out ${held})`)
    expect(text).toMatch(new RegExp(`^: loading ${other}… \\((starting|warming)\\)$`, 'm'))
    expect(text.indexOf(': loading')).toBeLessThan(text.indexOf('data: '))
    expect(text).toContain('data: [DONE]')

    const back = other === refs.a ? refs.b : refs.a
    const stream = await client.chat.completions.create({
      model: back,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
      stream: true,
    })
    let chunks = 0
    for await (const chunk of stream) if (chunk.object === 'chat.completion.chunk') chunks++
    expect(chunks).toBeGreaterThan(0)
  }, 60_000)

  it('queues beyond max_concurrent, answers 429 with Retry-After beyond max_queue, and shows the depth', async () => {
    expect(
      (
        await call(api, '/api/slots/primary', {
          method: 'PUT',
          json: primary({ max_concurrent: 1, max_queue: 1 }),
        })
      ).status,
    ).toBe(200)
    const held = (await call<SlotBody>(api, '/api/slots/primary')).body.model ?? refs.a
    const stream = await holdStream(api, { model: held, content: 'go on', max_tokens: 30_000 })
    const waiting = new AbortController()
    try {
      const queued = streamChat(api, { model: held, max_tokens: 2 }, { signal: waiting.signal }).catch(
        () => undefined,
      )
      const slot = await waitForSlot(
        api,
        'primary',
        (s) => (s as SlotBody & { queue: { depth: number } }).queue.depth === 1,
      )
      expect((slot as SlotBody & { queue: { oldestSince: number } }).queue.oldestSince).toBeLessThanOrEqual(
        Date.now(),
      )
      const metrics = String((await call<string>(api, '/api/metrics')).body)
      expect(metrics).toContain('svc_slot_queue_depth{slot="primary"} 1')
      const refused = await call<ErrorBody>(api, '/v1/chat/completions', {
        method: 'POST',
        json: { model: held, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
      })
      expect(refused.status).toBe(429)
      expect(refused.body.error.code).toBe('slot.busy')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      waiting.abort()
      await queued
    } finally {
      await stream.stop()
    }
    await waitForSlot(api, 'primary', (s) => (s as SlotBody & { queue: { depth: number } }).queue.depth === 0)
  }, 60_000)

  it('unloads after unload_after without a request, and the next request loads it again', async () => {
    expect(
      (await call(api, '/api/slots/primary', { method: 'PUT', json: primary({ unload_after: '2s' }) }))
        .status,
    ).toBe(200)
    const done = await client.chat.completions.create({
      model: refs.a,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
    })
    expect(done.choices).toHaveLength(1)
    const idleSince = Date.now()
    await waitForSlot(api, 'primary', (s) => s.state === 'offline', 15_000)
    expect(Date.now() - idleSince).toBeGreaterThanOrEqual(1_500)
    const metrics = String((await call<string>(api, '/api/metrics')).body)
    expect(metrics).toMatch(/svc_slot_auto_total\{slot="primary",action="unload",reason="idle"\} 1/)
    const again = await client.chat.completions.create({
      model: refs.a,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
    })
    expect(again.choices).toHaveLength(1)
  }, 60_000)
})
