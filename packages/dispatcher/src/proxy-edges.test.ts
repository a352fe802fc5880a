import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DispatchHarness, post, startDispatchHarness } from '../test/dispatch-harness'

const chat = (extra: object = {}) => ({
  model: 'primary',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
})

describe('the dispatcher proxies', () => {
  let h: DispatchHarness
  beforeAll(async () => {
    h = await startDispatchHarness({ upstreamTimeoutMs: 300 })
  })
  afterAll(async () => {
    await h[Symbol.asyncDispose]()
  })

  it('streams SSE through event by event, unbuffered', async () => {
    let next!: () => void
    const second = new Promise<void>((r) => {
      next = r
    })
    h.route('/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"n":1}\n\n')
      void second.then(() => res.end('data: {"n":2}\n\ndata: [DONE]\n\n'))
    })
    const res = await post(h, '/v1/chat/completions', chat({ stream: true }))
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.headers.get('x-accel-buffering')).toBe('no')
    const reader = res.body!.getReader()
    // The first event arrives while the upstream still holds the second one back.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"n":1}\n\n')
    next()
    let rest = ''
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += new TextDecoder().decode(r.value)
    expect(rest).toBe('data: {"n":2}\n\ndata: [DONE]\n\n')
  })

  it("turns an upstream's error into svc's error body, keeping a client error's status", async () => {
    h.route('/v1/chat/completions', (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end('{"error":{"code":400,"message":"context too long","type":"exceed_context_size_error"}}')
    })
    const res = await post(h, '/v1/chat/completions', chat())
    expect(res.status).toBe(400)
    expect((await res.json()).error).toMatchObject({
      code: 'request.invalid',
      type: 'exceed_context_size_error',
      message: expect.stringContaining('context too long'),
    })
    h.route('/v1/chat/completions', (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' })
      res.end('<html><body>Internal Server Error</body></html>')
    })
    const html = await post(h, '/v1/chat/completions', chat())
    expect(html.status).toBe(502)
    expect((await html.json()).error.code).toBe('upstream.error')
  })

  it('answers 504 upstream.timeout when the upstream does not start answering in time', async () => {
    h.route('/v1/chat/completions', (_req, res) => {
      setTimeout(() => res.writeHead(200).end('{}'), 1_000).unref()
    })
    const res = await post(h, '/v1/chat/completions', chat())
    expect(res.status).toBe(504)
    expect((await res.json()).error.code).toBe('upstream.timeout')
  })

  it('answers 502 upstream.unavailable when the upstream drops the connection before answering', async () => {
    h.route('/v1/chat/completions', (req) => req.socket.destroy())
    const res = await post(h, '/v1/chat/completions', chat())
    expect(res.status).toBe(502)
    expect((await res.json()).error.code).toBe('upstream.unavailable')
  })

  it('ends an SSE stream whose upstream dies with a data: {"error"} event', async () => {
    h.route('/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"n":1}\n\n')
      setTimeout(() => res.socket?.destroy(), 20).unref()
    })
    const text = await (await post(h, '/v1/chat/completions', chat({ stream: true }))).text()
    expect(text).toMatch(/^data: \{"n":1\}\n\ndata: \{"error":\{"code":"upstream.unavailable"/)
  })

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    h.route('/v1/chat/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"n":1}\n\n')
      // Never ends on its own: only the client leaving can close it.
    })
    const client = new AbortController()
    const before = h.seen.length
    const res = await post(h, '/v1/chat/completions', chat({ stream: true }), {
      signal: client.signal,
      headers: { 'content-type': 'application/json' },
    })
    await res.body!.getReader().read()
    client.abort()
    const closed = await Promise.race([h.seen[before]!.closed.then(() => true), sleep(2_000, false)])
    expect(closed).toBe(true)
  })
})
