/**
 * Who the chat app thinks you are: the forwarded identity counts only from the proxy (its address and
 * its secret), people see only their own conversations and files, and with auth on nothing falls back
 * to the local user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServedApp, send, serveChatApp } from './serve-app'

const SECRET = 'proxy-secret-for-tests'
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')

describe('with auth on (trusted header and proxy secret)', () => {
  let app: ServedApp
  const as = (email: string, extra: Record<string, string> = {}) => ({
    'x-forwarded-email': email,
    'x-svc-proxy-secret': SECRET,
    ...extra,
  })
  const json = { 'content-type': 'application/json' }

  beforeAll(async () => {
    app = await serveChatApp({ trustedHeader: 'X-Forwarded-Email', proxySecret: SECRET })
  })
  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
  })

  it('signs in the person the proxy names, creating them on the first visit', async () => {
    const r = await send(app.port, { path: '/api/me', headers: as('alice@example.com') })
    expect(r.status).toBe(200)
    expect(r.json()).toEqual({ identity: 'alice@example.com', auth: 'proxy', version: 'test' })
  })

  it.each([
    ['no header at all', {}, undefined],
    ['the header without the proxy secret', { 'x-forwarded-email': 'alice@example.com' }, undefined],
    ['the header with a wrong secret', as('alice@example.com', { 'x-svc-proxy-secret': 'guess' }), undefined],
    ['an empty header', as(''), undefined],
    ['the header and the secret from an address that is not the proxy', as('alice@example.com'), '127.0.0.2'],
  ])('refuses %s with 401 (never the local user)', async (_name, headers, from) => {
    const r = await send(app.port, { path: '/api/conversations', headers, ...(from ? { from } : {}) })
    expect(r.status).toBe(401)
    expect(r.json().error).toMatchObject({
      code: 'auth.required',
      message: expect.stringContaining('reverse proxy'),
    })
    const page = await send(app.port, {
      path: '/',
      headers: { ...headers, accept: 'text/html' },
      ...(from ? { from } : {}),
    })
    expect(page.status).toBe(401)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.text).toContain('Not signed in')
  })

  it('answers its health check without an identity, revealing nothing', async () => {
    const r = await send(app.port, { path: '/api/health' })
    expect(r.json()).toEqual({ status: 'ok', version: 'test' })
  })

  it('shows two people only their own conversations and files', async () => {
    const created = await send(app.port, {
      method: 'POST',
      path: '/api/conversations',
      headers: { ...as('alice@example.com'), ...json },
      body: JSON.stringify({ title: 'Alice’s plans' }),
    })
    expect(created.status).toBe(201)
    const id = created.json<{ conversation: { id: string } }>().conversation.id
    const upload = await send(app.port, {
      method: 'POST',
      path: '/api/files',
      headers: { ...as('alice@example.com'), 'content-type': 'image/png' },
      body: PNG,
    })
    expect(upload.status).toBe(201)
    const file = upload.json<{ file: { id: string; mime: string } }>().file
    expect(file.mime).toBe('image/png')

    const bob = as('bob@example.com')
    const bobList = await send(app.port, { path: '/api/conversations', headers: bob })
    expect(bobList.json()).toEqual({ conversations: [] })
    const attempts = [
      { path: `/api/conversations/${id}` },
      { path: `/api/conversations/${id}/export?format=json` },
      { method: 'PATCH', path: `/api/conversations/${id}`, body: '{"title":"mine now"}' },
      { method: 'DELETE', path: `/api/conversations/${id}` },
      { method: 'POST', path: `/api/conversations/${id}/stop` },
      { method: 'POST', path: `/api/conversations/${id}/regenerate`, body: '{"model":"primary"}' },
      {
        method: 'POST',
        path: `/api/conversations/${id}/messages`,
        body: '{"content":"hi","model":"primary"}',
      },
      { method: 'POST', path: `/api/conversations/${id}/images`, body: '{"prompt":"a cat"}' },
    ]
    for (const attempt of attempts) {
      const r = await send(app.port, { ...attempt, headers: { ...bob, ...json } })
      expect([attempt.method ?? 'GET', attempt.path, r.status]).toEqual([
        attempt.method ?? 'GET',
        attempt.path,
        404,
      ])
      expect(r.json().error.code).toBe('conversation.not_found')
    }
    const bobFile = await send(app.port, { path: `/api/files/${file.id}`, headers: bob })
    expect(bobFile.status).toBe(404)
    // Bob cannot send Alice's upload as his own attachment either.
    const bobs = await send(app.port, {
      method: 'POST',
      path: '/api/conversations',
      headers: { ...bob, ...json },
      body: '{}',
    })
    const bobId = bobs.json<{ conversation: { id: string } }>().conversation.id
    const sneaky = await send(app.port, {
      method: 'POST',
      path: `/api/conversations/${bobId}/messages`,
      headers: { ...bob, ...json },
      body: JSON.stringify({ content: 'look', model: 'primary', attachments: [file.id] }),
    })
    expect(sneaky.status).toBe(400)
    expect(sneaky.json().error.param).toBe('attachments.0')

    const alice = await send(app.port, { path: '/api/conversations', headers: as('alice@example.com') })
    expect(alice.json<{ conversations: { title: string }[] }>().conversations.map((c) => c.title)).toEqual([
      'Alice’s plans',
    ])
    const own = await send(app.port, { path: `/api/files/${file.id}`, headers: as('alice@example.com') })
    expect(own.status).toBe(200)
    expect(own.headers['content-type']).toBe('image/png')
  })

  it('refuses changes another site asks the browser to make', async () => {
    const post = (headers: Record<string, string>) =>
      send(app.port, {
        method: 'POST',
        path: '/api/conversations',
        headers: { ...as('alice@example.com'), ...json, ...headers },
        body: '{}',
      })
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await post({ 'sec-fetch-site': 'same-site' })).status).toBe(403)
    expect((await post({ origin: 'https://evil.example' })).json().error.code).toBe('auth.forbidden')
    expect((await post({ 'sec-fetch-site': 'same-origin' })).status).toBe(201)
    expect((await post({ origin: `http://127.0.0.1:${app.port}` })).status).toBe(201)
    // The proxy's own origin (what the browser sees) is accepted from the proxy.
    expect(
      (
        await post({
          origin: 'https://llm.local',
          'x-forwarded-host': 'llm.local',
          'x-forwarded-proto': 'https',
        })
      ).status,
    ).toBe(201)
    expect((await post({})).status).toBe(201) // not a browser (no Origin, no Sec-Fetch-Site)
  })
})

describe('with auth off', () => {
  it('is one local user for everyone, whatever header arrives', async () => {
    await using app = await serveChatApp()
    for (const headers of [{}, { 'x-forwarded-email': 'mallory@example.com' }] as Record<string, string>[]) {
      const r = await send(app.port, { path: '/api/me', headers })
      expect(r.json()).toEqual({ identity: 'local', auth: 'off', version: 'test' })
    }
    const remote = await send(app.port, {
      path: '/api/me',
      from: '127.0.0.2',
      headers: { 'x-forwarded-email': 'x@y' },
    })
    expect(remote.json()).toMatchObject({ identity: 'local' })
  })
})
