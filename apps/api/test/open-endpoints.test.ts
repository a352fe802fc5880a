import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import parsePrometheus from 'parse-prometheus-text-format'
import { describe, expect, it } from 'vitest'
import { urlHints } from '../src/routes/config-urls'
import { testApp } from './helpers'

const ERROR_SHAPE = {
  error: { code: expect.any(String), message: expect.any(String), type: expect.any(String), param: null },
}

describe('open endpoints', () => {
  it('GET /api/health/system reports status, version and uptime', async () => {
    const { app } = await testApp({ startedAt: Date.now() - 5_000 })
    const res = await app.request('/api/health/system')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok', version: '9.9.9', uptime_s: 5 })
  })

  it('GET /api/status answers the dashboard ping', async () => {
    const { app } = await testApp()
    const body = await (await app.request('/api/status')).json()
    expect(body).toMatchObject({ status: 'ok', version: '9.9.9', auth: 'off' })
    expect(Date.parse(body.time)).not.toBeNaN()
  })

  it('GET /api/features lists the flags', async () => {
    const { app } = await testApp()
    expect(await (await app.request('/api/features')).json()).toEqual({
      features: { auth: false, slots: true, images: false, containers: false, dashboard: false },
    })
  })

  it('GET /api/auth/status discovers the mode and reveals no credentials', async () => {
    const off = await (await (await testApp()).app.request('/api/auth/status')).json()
    expect(off).toEqual({ enabled: false, mode: 'off', methods: [], login: '/api/auth/login', caller: null })
    const on = await (
      await (await testApp({ auth: { enabled: true } })).app.request('/api/auth/status')
    ).json()
    expect(on).toMatchObject({ enabled: true, mode: 'proxy+token' })
  })

  it('/api/auth/login says the proxy owns login, for GET and POST', async () => {
    const { app } = await testApp({ auth: { enabled: true } })
    for (const method of ['GET', 'POST']) {
      const res = await app.request('/api/auth/login', { method })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({
        login: 'proxy',
        message: expect.stringContaining('reverse proxy'),
      })
    }
  })

  it('install state flips once, atomically and idempotently', async () => {
    const { app, deps } = await testApp()
    expect(await (await app.request('/api/install/state')).json()).toEqual({
      completed: false,
      completed_at: null,
    })
    const [a, b] = await Promise.all([
      Promise.resolve(app.request('/api/install/complete', { method: 'POST' })).then((r) => r.json()),
      Promise.resolve(app.request('/api/install/complete', { method: 'POST' })).then((r) => r.json()),
    ])
    expect(a.completed).toBe(true)
    expect(b).toEqual(a)
    const again = await (await app.request('/api/install/complete', { method: 'POST' })).json()
    expect(again).toEqual(a)
    expect(await (await app.request('/api/install/state')).json()).toEqual(a)
    const file = JSON.parse(await readFile(join(deps.paths.stateDir, 'install.json'), 'utf8'))
    expect(file.completed_at).toBe(a.completed_at)
  })

  it('GET /v1/models lists the slot aliases first, then usable refs, in OpenAI shape', async () => {
    const { app } = await testApp()
    const body = await (await app.request('/v1/models')).json()
    expect(body.object).toBe('list')
    // Chat slots only: embed, stt and tts hold no model (listed once they do).
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(['primary', 'mine'])
    expect(body.data[0]).toEqual({
      id: 'primary',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'svc',
      // svc's additions: what the model in the slot accepts (an empty slot: its role's) …
      capabilities: ['chat'],
      // … and, nothing being loaded, what the chat app reads to disable Send with the reason.
      _svc: { slot: 'primary', model: null, state: 'offline', loaded: false },
    })
    const one = await app.request('/v1/models/mine')
    expect(await one.json()).toMatchObject({ id: 'mine', object: 'model' })
    // Catalogued but not downloaded: listed by /api/models, not offered here.
    expect((await app.request('/v1/models/qwen3-0.6b-q8_0')).status).toBe(404)
    const missing = await app.request('/v1/models/nope')
    expect(missing.status).toBe(404)
    expect((await missing.json()).error.code).toBe('model.not_found')
  })

  it('GET /api/metrics is Prometheus text with request counts by route pattern', async () => {
    const { app } = await testApp()
    await app.request('/api/status')
    await app.request('/api/status')
    await app.request('/no/such/route')
    const res = await app.request('/api/metrics')
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const families = parsePrometheus(await res.text())
    const requests = families.find((f) => f.name === 'svc_http_requests_total')
    expect(requests?.type).toBe('COUNTER')
    const status = requests?.metrics.find((m) => 'labels' in m && m.labels?.route === '/api/status')
    expect(status).toMatchObject({ value: '2', labels: { method: 'GET', status: '200' } })
    expect(requests?.metrics.some((m) => 'labels' in m && m.labels?.route === 'unmatched')).toBe(true)
    expect(families.find((f) => f.name === 'svc_http_request_duration_seconds')?.type).toBe('HISTOGRAM')
  })
})

describe('errors', () => {
  it('an unknown route is the JSON error body with 404', async () => {
    const { app } = await testApp()
    const res = await app.request('/api/nope')
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(ERROR_SHAPE)
    expect(res.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/)
  })

  it('a wrong method is 405 with Allow', async () => {
    const { app } = await testApp()
    const res = await app.request('/api/health/system', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toContain('GET')
    expect((await res.json()).error.code).toBe('method.not_allowed')
  })

  it('a body over the limit is 413 request.too_large', async () => {
    const { app } = await testApp({ bodyLimitBytes: 100 })
    const res = await app.request('/api/install/complete', {
      method: 'POST',
      body: 'x'.repeat(1000),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('request.too_large')
  })

  it('every response carries a request id, and a sane inbound one is kept', async () => {
    const { app } = await testApp()
    const res = await app.request('/api/status', { headers: { 'X-Request-Id': 'abc-123' } })
    expect(res.headers.get('x-request-id')).toBe('abc-123')
    const bad = await app.request('/api/status', { headers: { 'X-Request-Id': 'a b\u00ff' } })
    expect(bad.headers.get('x-request-id')).not.toBe('a b\u00ff')
  })
})

describe('url hints', () => {
  it('use the forwarded host and proto behind a proxy, and /chat/ when auth is on', () => {
    expect(
      urlHints({
        host: '127.0.0.1:8080',
        forwardedHost: 'ai.example.org',
        forwardedProto: 'https',
        protocol: 'http',
        authEnabled: true,
      }),
    ).toEqual({
      api_base: 'https://ai.example.org/v1',
      dashboard: 'https://ai.example.org/',
      chat: 'https://ai.example.org/chat/',
      metrics: 'https://ai.example.org/api/metrics',
    })
  })

  it('point the chat front end at port 3001 of the same host when auth is off', () => {
    expect(urlHints({ host: 'box.lan:8080', protocol: 'http', authEnabled: false }).chat).toBe(
      'http://box.lan:3001/',
    )
    expect(urlHints({ host: '[::1]:8080', protocol: 'http', authEnabled: false }).chat).toBe(
      'http://[::1]:3001/',
    )
  })

  it('ignore a Host header that is not a host name', () => {
    expect(urlHints({ host: 'evil.com/<script>', protocol: 'http', authEnabled: false }).api_base).toBe(
      'http://localhost:8080/v1',
    )
  })

  it('answer over HTTP from the request headers', async () => {
    const { app } = await testApp()
    const res = await app.request('http://box.lan:8080/api/config/urls', {
      headers: { host: 'box.lan:8080' },
    })
    expect(await res.json()).toMatchObject({
      api_base: 'http://box.lan:8080/v1',
      chat: 'http://box.lan:3001/',
    })
  })
})
