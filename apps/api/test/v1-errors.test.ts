/**
 * An unexpected error on `/v1/*` is answered 500 `internal.error` without its
 * details, and logged once with the request id, so the operator can find it from the client's report.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, loadPlaceholder, send, startAuthServer } from './auth-harness'

const FIXTURE = fileURLToPath(new URL('./fixtures/throwing-provider.ts', import.meta.url))

describe('an unexpected error on /v1', () => {
  let server: AuthServer
  beforeAll(async () => {
    server = await startAuthServer({ SVC_AUTH_ENABLED: '0', SVC_PROVIDER_MODULES: FIXTURE })
    const put = await send(server.url, {
      method: 'PUT',
      path: '/api/slots/buggy',
      body: JSON.stringify({ provider: 'throwing' }),
    })
    expect(put.status, put.text).toBe(200)
    await loadPlaceholder(server, 'buggy')
  }, 60_000)
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
  })

  it('is a 500 internal.error that reveals nothing, logged with the request id and the cause', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'x-request-id': 'client-report-42' },
      body: JSON.stringify({ model: 'buggy', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(reply.status).toBe(500)
    expect(reply.code).toBe('internal.error')
    expect(reply.text).not.toContain('secretThing')
    expect(reply.headers['x-request-id']).toBe('client-report-42')
    const logged = server.logs.filter((l) => l.includes('client-report-42'))
    expect(logged).toHaveLength(1)
    expect(JSON.parse(logged[0]!)).toMatchObject({
      level: 'error',
      requestId: 'client-report-42',
      error: { name: 'TypeError', message: expect.stringContaining('secretThing') },
    })
  })
})
