/**
 * The proxy's edges against the fake upstream (a real process speaking HTTP): upstream
 * error bodies of every shape, down and slow upstreams, death mid-stream, hosted upstream refs and
 * their keys, audio streamed both ways.
 */
import { fileURLToPath } from 'node:url'
import {
  type ApiProcess,
  type FakeUpstream,
  type FakeUpstreamFlags,
  startApiWithConfig,
  startFakeUpstream,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { streamChat } from './chat-requests'
import { call, type ErrorBody, loadEchoSlot } from './live'

const FIXTURE = fileURLToPath(new URL('./fixtures/echo-provider.ts', import.meta.url))
const chat = (model: string, extra: object = {}) => ({
  method: 'POST',
  json: { model, messages: [{ role: 'user', content: 'hi' }], ...extra },
})

describe('the proxy against fake upstreams', () => {
  const upstreams: Record<string, FakeUpstream> = {}
  let api: ApiProcess

  beforeAll(async () => {
    const flags: Record<string, FakeUpstreamFlags> = {
      llama: { errorShape: 'llama' },
      text: { errorShape: 'text' },
      html: { errorShape: 'html' },
      detail: { errorShape: 'detail' },
      flm: { errorShape: '200-error' },
      slow: { delayMs: 60_000 },
      dying: { crashMidStream: true, streamChunks: 10, chunkIntervalMs: 20 },
      hosted: {},
    }
    await Promise.all(
      Object.entries(flags).map(async ([name, f]) => (upstreams[name] = await startFakeUpstream(f))),
    )
    const down = 9 // the discard port: nothing listens there (a free port could be taken meanwhile)
    const toml = [
      ...Object.entries(upstreams).map(
        ([name, u]) =>
          `[[upstream]]\nname = "${name}"\nbase_url = "${u.url}/v1"\n${name === 'slow' ? 'timeout_s = 1\n' : ''}${name === 'hosted' ? 'api_key_env = "HOSTED_KEY"\nmodels = ["gpt-x"]\n' : ''}`,
      ),
      `[[upstream]]\nname = "down"\nbase_url = "http://127.0.0.1:${down}/v1"\n`,
      `[[upstream]]\nname = "keyless"\nbase_url = "${upstreams.hosted!.url}/v1"\napi_key_env = "NOT_SET_ANYWHERE"\n`,
    ].join('\n')
    api = await startApiWithConfig({
      files: { 'upstreams.toml': toml },
      env: { SVC_PROVIDER_MODULES: FIXTURE, HOSTED_KEY: 'sk-operator-key' },
    })
    await loadEchoSlot(api)
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await Promise.all(Object.values(upstreams).map((u) => u.stop('SIGKILL')))
  })

  it.each([
    ['llama', 400, 'request.invalid', 'invalid_request_error'],
    ['text', 502, 'upstream.error', 'server_error'],
    ['html', 502, 'upstream.error', 'server_error'],
    ['detail', 400, 'request.invalid', 'invalid_request_error'],
    ['flm', 502, 'upstream.error', 'server_error'],
  ])('normalises a %s error body', async (shape, status, code, type) => {
    const r = await call<ErrorBody>(api, '/v1/chat/completions', chat(`${shape}/m`))
    expect(r.status).toBe(status)
    expect(r.body).toEqual({
      error: {
        code,
        message: expect.stringMatching(new RegExp(`^upstream ${shape}: .+`)),
        type,
        param: null,
      },
    })
    expect(String(r.body.error.message)).not.toMatch(/<html|<body/i)
  })

  it('answers 502 upstream.unavailable when the upstream is down', async () => {
    const r = await call<ErrorBody>(api, '/v1/chat/completions', chat('down/m'))
    expect(r.status).toBe(502)
    expect(r.body.error).toMatchObject({
      code: 'upstream.unavailable',
      message: expect.stringContaining('ECONNREFUSED'),
    })
  })

  it('answers 504 upstream.timeout when the upstream is too slow', async () => {
    const t0 = Date.now()
    const r = await call<ErrorBody>(api, '/v1/chat/completions', chat('slow/m'))
    expect(r.status).toBe(504)
    expect(r.body.error.code).toBe('upstream.timeout')
    // After its 1 s timeout, not the upstream's 60 s.
    expect(Date.now() - t0).toBeLessThan(15_000)
  })

  it('ends an SSE stream with an error event when the upstream dies mid-stream', async () => {
    const res = await streamChat(api, { model: 'dying/m', content: 'x' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const text = await res.text()
    expect(text).toContain('chat.completion.chunk')
    expect(text).not.toContain('[DONE]')
    const last = text.trim().split('\n\n').at(-1)!
    expect(JSON.parse(last.replace(/^data: /, '')).error.code).toBe('upstream.unavailable')
  })

  it('sends hosted refs to the configured service with the operator key, never the caller credentials', async () => {
    const r = await call<{ model: string }>(api, '/v1/chat/completions', {
      ...chat('hosted/gpt-x'),
      headers: { authorization: 'Bearer caller-secret', cookie: 'session=abc' },
    })
    expect(r.status).toBe(200)
    const seen = (await (await fetch(`${upstreams.hosted!.url}/debug/last-request`)).json()) as {
      path: string
      headers: Record<string, string>
      body: string | null
    }
    expect(seen.path).toBe('/v1/chat/completions')
    expect(seen.headers.authorization).toBe('Bearer sk-operator-key')
    expect(seen.headers.cookie).toBeUndefined()
    expect(seen.headers['x-request-id']).toBeTruthy()
    // `model` was rewritten to the upstream's own id, the rest of the client's body as it was.
    expect(seen.body).toBe(JSON.stringify({ ...chat('gpt-x').json }))
    const listed = await call<{ data: { id: string; owned_by: string }[] }>(api, '/v1/models')
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({ id: 'hosted/gpt-x', owned_by: 'hosted' }),
    )
    // A large body keeps the client's own bytes (an image chat is not serialised again), model spliced.
    const large = JSON.stringify({ ...chat('hosted/gpt-x').json, note: 'é'.repeat(3000) }, null, 2)
    const big = await call(api, '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: large,
    })
    expect(big.status).toBe(200)
    const bigSeen = (await (await fetch(`${upstreams.hosted!.url}/debug/last-request`)).json()) as {
      body: string
    }
    expect(bigSeen.body).toBe(large.replace('"hosted/gpt-x"', '"gpt-x"'))
    const unlisted = await call(api, '/v1/chat/completions', chat('hosted/gpt-not-allowed'))
    expect(unlisted.status).toBe(404)
  })

  it('refuses a hosted ref whose key is not configured, saying which variable to set', async () => {
    const r = await call<ErrorBody>(api, '/v1/chat/completions', chat('keyless/m'))
    expect(r.status).toBe(502)
    expect(r.body.error.message).toContain('NOT_SET_ANYWHERE')
  })

  it('streams a multipart transcription through to the upstream', async () => {
    const form = new FormData()
    form.append('model', 'echo')
    form.append('file', new Blob([new Uint8Array(5 * 1024 * 1024).fill(7)], { type: 'audio/wav' }), 'a.wav')
    const res = await fetch(`${api.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { text: string }
    const received = Number(/(\d+) bytes/.exec(body.text)?.[1])
    expect(received).toBeGreaterThan(5 * 1024 * 1024) // the whole multipart body arrived
  })

  it('finds the model field after the file, too', async () => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(200_000)], { type: 'audio/wav' }), 'a.wav')
    form.append('model', 'echo')
    const res = await fetch(`${api.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(200)
  })

  it('streams speech audio back as binary', async () => {
    const res = await fetch(`${api.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', input: 'hello', voice: 'alloy', response_format: 'wav' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('audio/wav')
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF')
  })

  it('counts requests, upstream time to first byte, overhead and tokens in the metrics', async () => {
    await call(api, '/v1/chat/completions', chat('echo'))
    const text = await (await fetch(`${api.url}/api/metrics`)).text()
    expect(text).toMatch(
      /svc_v1_requests_total\{route="\/v1\/chat\/completions",slot="echo",status="200"\} \d+/,
    )
    expect(text).toMatch(/svc_upstream_ttfb_seconds_count\{route="\/v1\/chat\/completions",slot="echo"\} \d+/)
    expect(text).toMatch(/svc_proxy_overhead_seconds_count\{route="\/v1\/chat\/completions"\} \d+/)
    expect(text).toMatch(/svc_tokens_total\{slot="echo",kind="prompt"\} \d+/)
  })
})
