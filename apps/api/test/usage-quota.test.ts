/**
 * Quotas at the API's edges, in-process with auth on and no model: setting limits (POST and PATCH
 * /api/auth/tokens), the default quota of forwarded identities, a token acting for a person
 * (`X-Svc-User`), and `GET /api/usage`'s refusals. A request that reaches the dispatcher is counted
 * whatever it answers (here 404 `model.not_found`), so no engine is needed.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { send, useAuthServer } from './auth-harness'

const CHAT = {
  method: 'POST',
  path: '/v1/chat/completions',
  body: '{"model":"nope","messages":[{"role":"user","content":"hi"}]}',
}

describe('quotas at the edges', () => {
  const server = useAuthServer({ SVC_IDENTITY_QUOTA: 'rpm=2,tpd=1000' })
  let admin: Record<string, string>
  beforeAll(async () => {
    admin = { Authorization: `Bearer ${(await server.mint('admin', 'root')).token}` }
  })
  const api = (method: string, path: string, body?: unknown) =>
    send(server.url, {
      method,
      path,
      headers: admin,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })

  it('sets limits at creation and changes or clears them with PATCH; bad limits are 400 with the field', async () => {
    const created = JSON.parse(
      (await api('POST', '/api/auth/tokens', { label: 'kid', limits: { requests_per_minute: 1 } })).text,
    )
    expect(created.limits).toEqual({ requests_per_minute: 1 })
    const bearer = { Authorization: `Bearer ${created.token}` }
    expect((await send(server.url, { ...CHAT, headers: bearer })).status).toBe(404)
    const refused = await send(server.url, { ...CHAT, headers: bearer })
    expect(refused.status).toBe(429)
    expect(refused.code).toBe('quota.exceeded')
    expect(JSON.parse(refused.text).error.message).toContain('1 requests per minute')

    const patched = await api('PATCH', `/api/auth/tokens/${created.id}`, {
      limits: { requests_per_minute: 5 },
    })
    expect(patched.status).toBe(200)
    expect(JSON.parse(patched.text)).toMatchObject({ id: created.id, limits: { requests_per_minute: 5 } })
    const now = await send(server.url, { ...CHAT, headers: bearer })
    expect(now.status).toBe(404) // the new limit applies from the next request
    expect(now.headers['x-ratelimit-limit-requests']).toBe('5')
    expect(now.headers['x-ratelimit-remaining-requests']).toBe('3')

    const cleared = await api('PATCH', `/api/auth/tokens/${created.id}`, { limits: null })
    expect(JSON.parse(cleared.text).limits).toBeNull()
    const free = await send(server.url, { ...CHAT, headers: bearer })
    expect(free.headers['x-ratelimit-limit-requests']).toBeUndefined()

    const bad = await api('PATCH', `/api/auth/tokens/${created.id}`, { limits: { tokens_per_day: -3 } })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text).error.param).toBe('limits.tokens_per_day')
    expect((await api('POST', '/api/auth/tokens', { label: 'x', limits: { per_week: 1 } })).status).toBe(400)
    expect((await api('PATCH', '/api/auth/tokens/AAAAAAAAAAAA', { limits: null })).code).toBe(
      'token.not_found',
    )
  })

  it('holds the quota on the Ollama API too: the same token, the same count', async () => {
    const created = JSON.parse(
      (await api('POST', '/api/auth/tokens', { label: 'ollama app', limits: { requests_per_minute: 2 } }))
        .text,
    )
    const bearer = { Authorization: `Bearer ${created.token}` }
    expect((await send(server.url, { ...CHAT, headers: bearer })).status).toBe(404)
    const ollamaChat = {
      method: 'POST',
      path: '/api/chat',
      body: '{"model":"nope","messages":[{"role":"user","content":"hi"}],"stream":false}',
    }
    const unknown = await send(server.url, { ...ollamaChat, headers: bearer })
    expect(unknown.status).toBe(404)
    // An answer in Ollama's shape carries the limited token's rate-limit headers like any other.
    expect(unknown.headers['x-ratelimit-limit-requests']).toBe('2')
    expect(unknown.headers['x-ratelimit-remaining-requests']).toBe('0')
    const refused = await send(server.url, { ...ollamaChat, headers: bearer })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // In Ollama's shape, as every other error on this surface: Ollama's clients raise `error` as text.
    const body = JSON.parse(refused.text)
    expect(body.code).toBe('quota.exceeded')
    expect(body.error).toMatch(/quota of 2 requests per minute is used up/)
  })

  it('gives each forwarded identity the default quota, apart from every other person', async () => {
    const as = (email: string) => ({ 'X-Forwarded-Email': email })
    const first = await send(server.url, { ...CHAT, headers: as('kid@home') })
    expect(first.headers['x-ratelimit-limit-requests']).toBe('2')
    expect(first.headers['x-ratelimit-limit-tokens-day']).toBe('1000')
    await send(server.url, { ...CHAT, headers: as('kid@home') })
    const third = await send(server.url, { ...CHAT, headers: as('kid@home') })
    expect(third.status).toBe(429)
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0)
    expect((await send(server.url, { ...CHAT, headers: as('parent@home') })).status).toBe(404)
  })

  it('holds a token acting for a person (X-Svc-User) to that person\u2019s quota as well as its own', async () => {
    const chat = { Authorization: `Bearer ${(await server.mint('v1-only', 'chat app')).token}` }
    const forAna = { ...chat, 'X-Svc-User': 'ana@home' }
    expect((await send(server.url, { ...CHAT, headers: forAna })).status).toBe(404)
    expect((await send(server.url, { ...CHAT, headers: forAna })).status).toBe(404)
    expect((await send(server.url, { ...CHAT, headers: forAna })).code).toBe('quota.exceeded')
    // The token itself is not limited: another person, or none, still passes.
    expect((await send(server.url, { ...CHAT, headers: { ...chat, 'X-Svc-User': 'bo@home' } })).status).toBe(
      404,
    )
    expect((await send(server.url, { ...CHAT, headers: chat })).status).toBe(404)
    const byPerson = JSON.parse((await api('GET', '/api/usage?group_by=identity')).text)
    expect(byPerson.rows.find((r: { identity: string }) => r.identity === 'ana@home')?.requests).toBe(2)
  })

  it('refuses a bad usage query with 400 naming the parameter', async () => {
    const bad = await api('GET', '/api/usage?group_by=colour')
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.text).error.param).toBe('group_by')
    expect(JSON.parse((await api('GET', '/api/usage?since=yesterday')).text).error.param).toBe('since')
    const backwards = await api('GET', '/api/usage?since=2026-02-01&until=2026-01-01')
    expect(backwards.status).toBe(400)
    const ok = await api('GET', '/api/usage?group_by=day&since=2020-01-01T00:00:00Z')
    expect(JSON.parse(ok.text)).toMatchObject({ group_by: 'day', since: '2020-01-01T00:00:00.000Z' })
  })
})
