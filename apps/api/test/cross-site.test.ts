/**
 * Requests that ride the browser's credentials from another site, and CORS for
 * browser clients of `/v1/*` — against the real server (Hono app and the raw inference path).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, send, useAuthServer } from './auth-harness'

const PROXY = { 'x-forwarded-email': 'ops@example.com' }
/** A CORS preflight (OPTIONS) for `path` with the browser's `origin` and access-control-request-* headers. */
const preflight = (server: AuthServer, path: string, headers: Record<string, string>) =>
  send(server.url, { method: 'OPTIONS', path, headers })

const CHAT = JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] })

describe('with auth on, a forwarded identity', () => {
  const server = useAuthServer({ SVC_TRUSTED_PROXIES: '127.0.0.1' })
  const unload = (headers: Record<string, string>) =>
    send(server.url, { method: 'POST', path: '/api/slots/primary/unload', headers: { ...PROXY, ...headers } })

  it('may not change anything from another site (Sec-Fetch-Site)', async () => {
    for (const site of ['cross-site', 'same-site']) {
      const reply = await unload({ 'sec-fetch-site': site, origin: 'https://evil.example' })
      expect(reply.status, site).toBe(403)
      expect(reply.code).toBe('auth.forbidden')
      expect(reply.text).toMatch(/same site|another site/i)
    }
  })

  it('may not change anything from another origin (Origin, when no Sec-Fetch-Site)', async () => {
    const reply = await unload({ origin: 'https://evil.example' })
    expect(reply.status).toBe(403)
    expect((await unload({ origin: 'null' })).status).toBe(403)
  })

  it('may change things from the same origin, or without browser headers (curl, the CLI)', async () => {
    expect((await unload({ 'sec-fetch-site': 'same-origin' })).status).toBe(202)
    expect((await unload({})).status).toBe(202)
    const host = new URL(server.url).host
    expect((await unload({ origin: `http://${host}` })).status).toBe(202)
    // Behind the proxy the browser's origin is the proxy's host, which it forwards.
    expect((await unload({ origin: 'https://svc.example', 'x-forwarded-host': 'svc.example' })).status).toBe(
      202,
    )
  })

  it('may still read from another site (reads change nothing)', async () => {
    const reply = await send(server.url, {
      path: '/api/slots',
      headers: { ...PROXY, 'sec-fetch-site': 'cross-site' },
    })
    expect(reply.status).toBe(200)
  })

  it('may not run inference from another site either (the raw /v1 path)', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { ...PROXY, 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      body: CHAT,
    })
    expect(reply.status).toBe(403)
    expect(reply.code).toBe('auth.forbidden')
  })

  it('does not stop a bearer token used from another origin (a browser never adds it by itself)', async () => {
    const { token } = await server.mint('admin')
    const reply = await send(server.url, {
      method: 'POST',
      path: '/api/slots/primary/unload',
      headers: {
        authorization: `Bearer ${token}`,
        'sec-fetch-site': 'cross-site',
        origin: 'https://app.example',
      },
    })
    expect(reply.status).toBe(202)
  })
})

describe('CORS on /v1/* (default SVC_CORS_ORIGINS=*)', () => {
  const server = useAuthServer()
  let token: string
  beforeAll(async () => {
    token = (await server.mint('v1-only')).token
  })

  it('answers a preflight without credentials: 204, any origin, never with credentials', async () => {
    for (const path of ['/v1/chat/completions', '/v1/models', '/v1/audio/transcriptions']) {
      const reply = await preflight(server, path, {
        origin: 'https://chat.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-stainless-os',
      })
      expect(reply.status, path).toBe(204)
      expect(reply.headers['access-control-allow-origin']).toBe('*')
      expect(String(reply.headers['access-control-allow-methods'])).toMatch(/POST/)
      expect(String(reply.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization')
      expect(String(reply.headers['access-control-allow-headers']).toLowerCase()).toContain('x-stainless-os')
      expect(reply.headers['access-control-allow-credentials']).toBeUndefined()
      expect(Number(reply.headers['access-control-max-age'])).toBeGreaterThan(0)
    }
  })

  it('marks answers to another origin readable, errors included', async () => {
    const ok = await send(server.url, { path: '/v1/models', headers: { origin: 'https://chat.example' } })
    expect(ok.status).toBe(200)
    expect(ok.headers['access-control-allow-origin']).toBe('*')
    const refused = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { origin: 'https://chat.example' },
      body: CHAT,
    })
    expect(refused.status).toBe(401)
    expect(refused.headers['access-control-allow-origin']).toBe('*')
    expect(String(refused.headers['access-control-expose-headers']).toLowerCase()).toContain('x-request-id')
    const served = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { origin: 'https://chat.example', authorization: `Bearer ${token}` },
      body: CHAT,
    })
    expect(served.status).toBe(404) // model.not_found: past auth, answered by the dispatcher
    expect(served.headers['access-control-allow-origin']).toBe('*')
    expect(served.headers['access-control-allow-credentials']).toBeUndefined()
  })

  it('gives /api/* no CORS at all', async () => {
    const asked = await preflight(server, '/api/slots', {
      origin: 'https://chat.example',
      'access-control-request-method': 'GET',
    })
    expect(asked.headers['access-control-allow-origin']).toBeUndefined()
    expect(asked.status).not.toBe(204)
    const read = await send(server.url, { path: '/api/status', headers: { origin: 'https://chat.example' } })
    expect(read.status).toBe(200)
    expect(read.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('CORS with SVC_CORS_ORIGINS listing origins', () => {
  const server = useAuthServer({ SVC_CORS_ORIGINS: 'https://app.example, http://localhost:5173' })

  it('answers the listed origins by name (Vary: Origin) and no others', async () => {
    const listed = await send(server.url, {
      path: '/v1/models',
      headers: { origin: 'http://localhost:5173' },
    })
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:5173')
    expect(String(listed.headers.vary)).toMatch(/origin/i)
    const other = await send(server.url, { path: '/v1/models', headers: { origin: 'https://evil.example' } })
    expect(other.status).toBe(200)
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    const asked = await preflight(server, '/v1/chat/completions', {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    })
    expect(asked.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('with auth off', () => {
  const server = useAuthServer({ SVC_AUTH_ENABLED: '0' })

  it('a page on another site cannot unload a slot on the LAN box', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/api/slots/primary/unload',
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    })
    expect(reply.status).toBe(403)
    const same = await send(server.url, {
      method: 'POST',
      path: '/api/slots/primary/unload',
      headers: { 'sec-fetch-site': 'same-origin' },
    })
    expect(same.status).toBe(202)
  })

  it('web clients on other origins may still call /v1 (CORS)', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://chat.example' },
      body: CHAT,
    })
    expect(reply.status).toBe(404)
    expect(reply.headers['access-control-allow-origin']).toBe('*')
  })
})

describe('DNS rebinding (a page on another name that now resolves to this box)', () => {
  const server = useAuthServer({ SVC_AUTH_ENABLED: '0' })
  const REBOUND = { host: 'evil.test:8080', origin: 'http://evil.test:8080', 'sec-fetch-site': 'same-origin' }

  it('cannot mint an admin token with auth off: 403 host.forbidden, saying how to add a name', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/api/auth/tokens',
      headers: REBOUND,
      body: JSON.stringify({ label: 'rebound', scope: 'admin' }),
    })
    expect(reply.status, reply.text).toBe(403)
    expect(reply.code).toBe('host.forbidden')
    expect(reply.text).toContain('SVC_ALLOWED_HOSTS')
    expect(reply.text).not.toContain('svc_')
    const listed = await send(server.url, { path: '/api/auth/tokens' })
    expect(JSON.parse(listed.text)).toMatchObject({ tokens: [] })
  })

  it('cannot run inference either (the raw /v1 path), nor get a CORS answer', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: REBOUND,
      body: CHAT,
    })
    expect(reply.status).toBe(403)
    expect(reply.code).toBe('host.forbidden')
    const asked = await preflight(server, '/v1/chat/completions', {
      host: 'evil.test:8080',
      origin: 'http://other.example',
      'access-control-request-method': 'POST',
    })
    expect(asked.status).toBe(403)
    expect(asked.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('still answers to this machine by loopback name and address', async () => {
    const port = new URL(server.url).port
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'svc.localhost']) {
      const reply = await send(server.url, { path: '/api/status', headers: { host } })
      expect(reply.status, host).toBe(200)
    }
  })
})
