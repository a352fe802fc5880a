import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore, createTokenVerifier } from '@svc/auth'
import { beforeAll, describe, expect, it } from 'vitest'
import { FAST_HASH, passedAuth, send, useAuthServer } from './auth-harness'
import { testApp } from './helpers'

const CHAT = { method: 'POST', path: '/v1/chat/completions', body: '{"model":"nope","messages":[]}' }

describe('token endpoints', () => {
  const server = useAuthServer()
  let admin: Record<string, string>
  beforeAll(async () => {
    admin = { Authorization: `Bearer ${(await server.mint('admin', 'root')).token}` }
  })

  const post = (body: unknown, headers = admin) =>
    send(server.url, { method: 'POST', path: '/api/auth/tokens', body: JSON.stringify(body), headers })

  it('creates a v1-only token by default, shows it once with a warning, and it works at once', async () => {
    const res = await post({ label: 'ci runner' })
    expect(res.status).toBe(201)
    const body = JSON.parse(res.text)
    expect(body).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{12}$/),
      label: 'ci runner',
      scope: 'v1-only',
      created_at: expect.any(String),
      last_used_at: null,
      limits: null,
      models: null,
      token: expect.stringMatching(/^svc_[A-Za-z0-9]{12}\.[A-Za-z0-9_-]{43}$/),
      warning: expect.stringContaining('shown only once'),
    })
    const bearer = { Authorization: `Bearer ${body.token}` }
    expect(passedAuth(await send(server.url, { ...CHAT, headers: bearer }))).toBe(true)
    expect((await send(server.url, { path: '/api/slots', headers: bearer })).code).toBe('auth.forbidden')
  })

  it('creates a token of each scope when asked', async () => {
    for (const scope of ['admin', 'all', 'v1-only', 'read-only']) {
      const res = await post({ label: `s-${scope}`, scope })
      expect(JSON.parse(res.text).scope).toBe(scope)
    }
  })

  it.each([
    ['no label', {}, 'label'],
    ['an empty label', { label: '' }, 'label'],
    ['a label of 65 characters', { label: 'x'.repeat(65) }, 'label'],
    ['a label with a newline', { label: 'a\nb' }, 'label'],
    ['a label that is not a string', { label: 7 }, 'label'],
    ['an unknown scope', { label: 'x', scope: 'root' }, 'scope'],
  ])('refuses %s with 400 request.invalid naming the field', async (_name, body, param) => {
    const res = await post(body)
    expect(res.status).toBe(400)
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'request.invalid', param })
  })

  it('refuses a body that is not JSON', async () => {
    const res = await send(server.url, {
      method: 'POST',
      path: '/api/auth/tokens',
      body: 'label=x',
      headers: { ...admin, 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(400)
  })

  it('lists tokens with last use and without secrets or hashes', async () => {
    const made = JSON.parse((await post({ label: 'listed', scope: 'read-only' })).text)
    await send(server.url, { path: '/api/slots', headers: { Authorization: `Bearer ${made.token}` } })
    const res = await send(server.url, { path: '/api/auth/tokens', headers: admin })
    expect(res.status).toBe(200)
    const { tokens } = JSON.parse(res.text) as { tokens: Record<string, unknown>[] }
    const listed = tokens.find((t) => t.id === made.id)
    expect(listed).toEqual({
      id: made.id,
      label: 'listed',
      scope: 'read-only',
      created_at: made.created_at,
      last_used_at: expect.any(String),
      limits: null,
      models: null,
    })
    expect(res.text).not.toContain('argon2')
    expect(res.text).not.toContain(made.token.split('.')[1])
  })

  it('revokes at once: the very next request with the token is 401 auth.invalid, on both paths', async () => {
    const made = JSON.parse((await post({ label: 'short-lived', scope: 'all' })).text)
    const bearer = { Authorization: `Bearer ${made.token}` }
    expect(passedAuth(await send(server.url, { path: '/api/slots', headers: bearer }))).toBe(true)
    expect(passedAuth(await send(server.url, { ...CHAT, headers: bearer }))).toBe(true)
    const del = await send(server.url, {
      method: 'DELETE',
      path: `/api/auth/tokens/${made.id}`,
      headers: admin,
    })
    expect(del.status).toBe(200)
    expect(JSON.parse(del.text)).toEqual({ id: made.id, revoked: true })
    expect((await send(server.url, { path: '/api/slots', headers: bearer })).code).toBe('auth.invalid')
    expect((await send(server.url, { ...CHAT, headers: bearer })).code).toBe('auth.invalid')
  })

  it('answers 404 token.not_found for an unknown id, and never echoes a token put in its place', async () => {
    const unknown = await send(server.url, {
      method: 'DELETE',
      path: '/api/auth/tokens/AAAAAAAAAAAA',
      headers: admin,
    })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe('token.not_found')
    const token = (await server.mint('v1-only')).token
    const misuse = await send(server.url, {
      method: 'DELETE',
      path: `/api/auth/tokens/${token}`,
      headers: admin,
    })
    expect(misuse.status).toBe(404)
    expect(misuse.text).not.toContain(token.split('.')[1])
  })

  it('is for admins only', async () => {
    for (const scope of ['all', 'v1-only', 'read-only'] as const) {
      const bearer = { Authorization: `Bearer ${(await server.mint(scope)).token}` }
      expect((await post({ label: 'x' }, bearer)).code).toBe('auth.forbidden')
      expect((await send(server.url, { path: '/api/auth/tokens', headers: bearer })).code).toBe(
        'auth.forbidden',
      )
    }
    expect((await post({ label: 'x' }, { 'X-Forwarded-Email': 'ada@example.com' })).status).toBe(201)
  })
})

describe('token endpoints with auth off', () => {
  it('work for everyone (trusted LAN), and answer 404 where no store is configured', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'svc-tokens-off-'))
    const store = createTokenStore({ configDir, hashParams: FAST_HASH, flushIntervalMs: 0 })
    try {
      const { app } = await testApp({
        auth: { enabled: false, store, verifier: createTokenVerifier({ store }) },
      })
      const res = await app.request('/api/auth/tokens', {
        method: 'POST',
        body: JSON.stringify({ label: 'prepared' }),
        headers: { 'content-type': 'application/json' },
      })
      expect(res.status).toBe(201)
      expect((await (await app.request('/api/auth/tokens')).json()).tokens).toHaveLength(1)
      const bare = (await testApp()).app
      expect((await bare.request('/api/auth/tokens')).status).toBe(404)
    } finally {
      await store.close()
      await rm(configDir, { recursive: true, force: true })
    }
  })
})
