import { execFile } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { isAlive } from '@svc/core/node'
import { describe, expect, it } from 'vitest'
import {
  FAKE_UPSTREAM_BIN,
  type FakeUpstreamErrorShape,
  fakeUpstreamArgs,
  startFakeUpstream,
} from '../src/index'

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** The `data:` payloads of an SSE body, in order. */
const dataEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length))

describe('fake-upstream', () => {
  it('maps camelCase flags to its command line', () => {
    expect(
      fakeUpstreamArgs({ port: 0, delayMs: 5, crashMidStream: true, failHealth: false, errorShape: 'html' }),
    ).toEqual(['--port', '0', '--delay-ms', '5', '--crash-mid-stream', '--error-shape', 'html'])
  })

  it('prints one listening line and serves health, models, metrics and a JSON 404', async () => {
    await using up = await startFakeUpstream({ model: 'm1' })
    expect(up.output()).toBe(`fake-upstream listening on http://127.0.0.1:${up.port}\n`)
    const health = await fetch(`${up.url}/health`)
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }])
    expect(await (await fetch(`${up.url}/v1/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'm1' }],
    })
    await post(`${up.url}/v1/chat/completions`, { model: 'm1', messages: [] })
    expect(await (await fetch(`${up.url}/metrics`)).text()).toMatch(/^llamacpp:prompt_tokens_total 8$/m)
    const missing = await fetch(`${up.url}/v1/nope`)
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } },
    ])
  })

  it('answers chat as JSON, or as SSE chunks ending with finish_reason, usage and [DONE]', async () => {
    await using up = await startFakeUpstream({ streamChunks: 3 })
    const json = await (await post(`${up.url}/v1/chat/completions`, { messages: [] })).json()
    expect(json).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'Hello from the' }, finish_reason: 'stop' }],
      usage: { completion_tokens: 3 },
    })
    const res = await post(`${up.url}/v1/chat/completions`, { messages: [], stream: true })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = dataEvents(await res.text())
    expect(events).toHaveLength(5)
    expect(events.at(-1)).toBe('[DONE]')
    const last = JSON.parse(events[3]!)
    expect(last).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [{ finish_reason: 'stop' }],
      usage: {},
    })
  })

  it('answers completions, embeddings of 8 floats and rerank sorted by score', async () => {
    await using up = await startFakeUpstream()
    expect(await (await post(`${up.url}/v1/completions`, { prompt: 'x' })).json()).toMatchObject({
      object: 'text_completion',
      choices: [{ finish_reason: 'stop' }],
    })
    const streamed = dataEvents(
      await (await post(`${up.url}/v1/completions`, { prompt: 'x', stream: true })).text(),
    )
    expect(streamed).toHaveLength(7)
    const emb = (await (await post(`${up.url}/v1/embeddings`, { input: ['a', 'b'] })).json()) as {
      data: { index: number; embedding: number[] }[]
    }
    expect(emb.data.map((d) => d.embedding.length)).toEqual([8, 8])
    expect(emb.data[0]!.embedding).not.toEqual(emb.data[1]!.embedding)
    const rerank = await (
      await post(`${up.url}/v1/rerank`, {
        query: 'red apple',
        documents: ['blue car', 'red apple', 'apple'],
        top_n: 2,
      })
    ).json()
    expect(rerank).toMatchObject({
      object: 'list',
      results: [{ index: 1, relevance_score: 1 }, { index: 2 }],
    })
    expect((await post(`${up.url}/v1/rerank`, { documents: ['a'] })).status).toBe(400)
  })

  it('counts a multipart transcription body and streams speech as audio/wav', async () => {
    await using up = await startFakeUpstream()
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(1000)]), 'a.wav')
    form.append('model', 'stt')
    const stt = await fetch(`${up.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect((await stt.json()) as { text: string }).toMatchObject({
      text: expect.stringMatching(/^\d{4} bytes$/),
    })
    const tts = await post(`${up.url}/v1/audio/speech`, { input: 'hi' })
    expect(tts.headers.get('content-type')).toBe('audio/wav')
    const wav = Buffer.from(await tts.arrayBuffer())
    expect(wav.subarray(0, 4).toString()).toBe('RIFF')
    expect(wav.length).toBeGreaterThan(1000)
  })

  it('echoes the last request, and notices a client that went away', async () => {
    await using up = await startFakeUpstream()
    await post(`${up.url}/v1/embeddings?x=1`, { input: 'q' }, { authorization: 'Bearer up-key' })
    await fetch(`${up.url}/health`)
    expect(await (await fetch(`${up.url}/debug/last-request`)).json()).toMatchObject({
      method: 'POST',
      path: '/v1/embeddings',
      headers: { authorization: 'Bearer up-key' },
      body: '{"input":"q"}',
      aborted: false,
    })
    // A request the stand-in holds for 30 s, aborted once it has it, however slow the machine.
    await using slow = await startFakeUpstream({ delayMs: 30_000 })
    const last = async () =>
      (await (await fetch(`${slow.url}/debug/last-request`)).json()) as Record<string, unknown>
    const ac = new AbortController()
    const pending = fetch(`${slow.url}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
      signal: ac.signal,
    })
    await expect.poll(async () => (await last()).path, { timeout: 10_000 }).toBe('/v1/chat/completions')
    expect((await last()).aborted).toBe(false)
    ac.abort()
    await expect(pending).rejects.toThrow()
    await expect.poll(async () => (await last()).aborted, { timeout: 10_000 }).toBe(true)
  })

  it('waits --delay-ms before answering and --chunk-interval-ms between chunks', async () => {
    await using up = await startFakeUpstream({ delayMs: 150, chunkIntervalMs: 60, streamChunks: 3 })
    let t = performance.now()
    await (await post(`${up.url}/v1/chat/completions`, {})).json()
    expect(performance.now() - t).toBeGreaterThanOrEqual(140)
    t = performance.now()
    const reader = (await post(`${up.url}/v1/chat/completions`, { stream: true })).body!.getReader()
    const arrivals: number[] = []
    while (!(await reader.read()).done) arrivals.push(performance.now() - t)
    expect(arrivals.length).toBeGreaterThan(1)
    // From the request to the stream's end: the delay and two intervals at least. (The spread between
    // arrivals shrinks when a slow reader gets two chunks in one read; this only grows.)
    expect(arrivals.at(-1)!).toBeGreaterThanOrEqual(150 + 2 * 60 - 10)
  })

  it('fails health always with --fail-health, and until --health-after-ms like a loading llama-server', async () => {
    await using failing = await startFakeUpstream({ failHealth: true })
    const res = await fetch(`${failing.url}/health`)
    expect([res.status, await res.json()]).toEqual([
      503,
      { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } },
    ])
    // Counted from the stand-in's start: long enough that the first check comes before it on a busy machine.
    await using loading = await startFakeUpstream({ healthAfterMs: 5_000 })
    expect((await fetch(`${loading.url}/health`)).status).toBe(503)
    await expect
      .poll(async () => (await fetch(`${loading.url}/health`)).status, { timeout: 15_000 })
      .toBe(200)
  })

  it('exits 1 after --crash-after requests, not counting /health', async () => {
    await using up = await startFakeUpstream({ crashAfter: 2 })
    expect((await fetch(`${up.url}/health`)).status).toBe(200)
    expect((await post(`${up.url}/v1/chat/completions`, {})).status).toBe(200)
    expect(isAlive(up.pid)).toBe(true)
    expect((await fetch(`${up.url}/v1/models`)).status).toBe(200)
    expect(await up.exited).toEqual({ code: 1, signal: null })
    await expect(fetch(`${up.url}/health`)).rejects.toThrow()
  })

  it('resets the connection and exits 1 halfway through a stream with --crash-mid-stream', async () => {
    await using up = await startFakeUpstream({ crashMidStream: true, streamChunks: 4 })
    const res = await post(`${up.url}/v1/chat/completions`, { stream: true })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    let text = ''
    const read = async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        text += Buffer.from(value).toString()
      }
    }
    await expect(read()).rejects.toThrow()
    expect(dataEvents(text)).toHaveLength(2)
    expect(await up.exited).toEqual({ code: 1, signal: null })
  })

  it('survives SIGTERM with --ignore-sigterm and dies only on SIGKILL', async () => {
    await using up = await startFakeUpstream({ ignoreSigterm: true })
    up.child.kill('SIGTERM')
    await sleep(200)
    expect((await fetch(`${up.url}/health`)).status).toBe(200)
    expect(await up.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' })
    expect(isAlive(up.pid)).toBe(false)
  })

  it('exits 0 promptly on SIGTERM otherwise', async () => {
    await using up = await startFakeUpstream()
    expect(await up.stop('SIGTERM', 2_000)).toEqual({ code: 0, signal: null })
  })

  it.each<[FakeUpstreamErrorShape, number, RegExp, RegExp]>([
    ['llama', 400, /json/, /^\{"error":\{"code":400,"message":".+","type":"invalid_request_error"\}\}$/],
    ['text', 500, /text\/plain/, /^Internal Server Error/],
    ['html', 502, /text\/html/, /<h1>502 Bad Gateway<\/h1>/],
    ['detail', 422, /json/, /^\{"detail":\[/],
    ['200-error', 200, /json/, /^\{"error":"[^"]+"\}$/],
  ])('answers inference with --error-shape %s', async (shape, status, type, body) => {
    await using up = await startFakeUpstream({ errorShape: shape })
    const res = await post(`${up.url}/v1/chat/completions`, { messages: [] })
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toMatch(type)
    expect(await res.text()).toMatch(body)
    expect((await fetch(`${up.url}/health`)).status).toBe(200)
  })

  it('refuses unknown flags with exit code 2 and its usage', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [FAKE_UPSTREAM_BIN, '--error-shape', 'xml'],
        (_err, _out, stderr) => resolve({ code: child.exitCode, stderr }),
      )
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--error-shape must be one of/)
  })
})
