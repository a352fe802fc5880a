/**
 * Malformed credentials, throttling and the caller's identity, against the real server with auth on:
 * bytes on a raw socket where an HTTP client would refuse to send them.
 */
import { connect } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { passedAuth, send, useAuthServer } from './auth-harness'

/** Sends raw request bytes and returns the status line's code and the raw response. */
function raw(
  url: string,
  head: Buffer | string,
  from = '127.0.0.1',
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: from })
    let text = ''
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
    })
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }))
    socket.on('error', reject)
    socket.write(head)
  })
}

function requestBytes(path: string, authorization: Buffer, method = 'GET'): Buffer {
  const body = method === 'POST' ? '{"model":"nope","messages":[{"role":"user","content":"hi"}]}' : ''
  return Buffer.concat([
    Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: `),
    authorization,
    Buffer.from(
      `\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`,
    ),
  ])
}

describe('auth headers', () => {
  const server = useAuthServer({ SVC_TRUSTED_PROXIES: '127.0.0.1' })
  let admin: string
  beforeAll(async () => {
    admin = (await server.mint('admin', 'ops')).token
  })

  // Each case from its own address: failures are throttled per client.
  const malformed: [string, (token: string) => Buffer][] = [
    ['a lower-case scheme', (t) => Buffer.from(`bearer ${t}`)],
    ['an upper-case scheme', (t) => Buffer.from(`BEARER ${t}`)],
    ['two spaces', (t) => Buffer.from(`Bearer  ${t}`)],
    ['a tab', (t) => Buffer.from(`Bearer\t${t}`)],
    ['the scheme alone', () => Buffer.from('Bearer')],
    ['an empty token', () => Buffer.from('Bearer ')],
    ['a token with a trailing word', (t) => Buffer.from(`Bearer ${t} extra`)],
    ['a comma-joined pair', (t) => Buffer.from(`Bearer ${t}, Bearer ${t}`)],
    [
      'non-ASCII bytes (latin1)',
      (t) => Buffer.concat([Buffer.from(`Bearer ${t.slice(0, -1)}`), Buffer.from([0xe9])]),
    ],
    ['non-ASCII bytes (UTF-8)', (t) => Buffer.from(`Bearer ${t.slice(0, -2)}é`, 'utf8')],
    ['a token-shaped string of 8 KB', () => Buffer.from(`Bearer svc_${'A'.repeat(8 * 1024)}`)],
  ]
  for (const [route, method] of [
    ['/api/slots', 'GET'],
    ['/v1/chat/completions', 'POST'],
  ] as const) {
    it.each(malformed.map(([name, make], i) => [name, make, i] as const))(
      `${method} ${route} with %s is 401, never 500`,
      async (_name, make, i) => {
        const from = `127.9.${route.length}.${i + 1}`
        const reply = await raw(server.url, requestBytes(route, make(admin), method), from)
        expect(reply.status, reply.text).toBe(401)
        expect(reply.text).toContain('"code":"auth.invalid"')
        expect(reply.text).not.toContain(admin.split('.')[1]!)
      },
    )

    it(`${method} ${route} with a 16 KB Authorization header is refused by Node's parser (431), not 500`, async () => {
      const reply = await raw(
        server.url,
        requestBytes(route, Buffer.from(`Bearer ${'x'.repeat(16 * 1024)}`), method),
      )
      expect([400, 401, 431]).toContain(reply.status)
    })
  }

  it('answers a 16 KB bearer token that fits the header limit with 401, without hashing it', async () => {
    // Just under Node's 16 KiB limit for all headers together.
    const reply = await raw(
      server.url,
      requestBytes('/api/slots', Buffer.from(`Bearer ${'x'.repeat(16 * 1024 - 200)}`)),
      '127.9.9.1',
    )
    expect(reply.status).toBe(401)
  })

  it('passes the exact spelling, and refuses another scheme as no token at all', async () => {
    expect(
      passedAuth(
        await send(server.url, { path: '/api/slots', headers: { Authorization: `Bearer ${admin}` } }),
      ),
    ).toBe(true)
    const basic = await send(server.url, { path: '/api/slots', headers: { Authorization: 'Basic YTpi' } })
    expect(basic.code).toBe('auth.required')
    const digest = await send(server.url, { path: '/api/slots', headers: { Authorization: 'Digest x' } })
    expect(digest.code).toBe('auth.required')
  })

  it('throttles repeated failures from one client with 429 and Retry-After, on both paths, and no one else', async () => {
    const from = '127.8.0.1'
    const bad = { Authorization: 'Bearer svc_AAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }
    const codes: (string | undefined)[] = []
    for (let i = 0; i < 10; i++)
      codes.push((await send(server.url, { path: '/api/slots', headers: bad, from })).code)
    expect(codes.every((c) => c === 'auth.invalid')).toBe(true)
    const refused = await send(server.url, { path: '/api/slots', headers: bad, from })
    expect(refused.status).toBe(429)
    expect(refused.code).toBe('auth.throttled')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    const rawPath = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      body: '{}',
      headers: bad,
      from,
    })
    expect(rawPath.status).toBe(429)
    expect(rawPath.headers['retry-after']).toBeDefined()
    // A valid token already verified still works from there; another client is not affected.
    expect(
      passedAuth(
        await send(server.url, { path: '/api/slots', headers: { Authorization: `Bearer ${admin}` }, from }),
      ),
    ).toBe(true)
    expect((await send(server.url, { path: '/api/slots', headers: bad, from: '127.8.0.2' })).code).toBe(
      'auth.invalid',
    )
    // Open endpoints stay open for the throttled client.
    expect((await send(server.url, { path: '/api/status', headers: bad, from })).status).toBe(200)
  })

  it('keys clients behind the trusted proxy by the address it appended to X-Forwarded-For', async () => {
    const bad = { Authorization: 'Bearer nope' }
    for (let i = 0; i < 10; i++) {
      await send(server.url, {
        path: '/api/slots',
        headers: { ...bad, 'X-Forwarded-For': '203.0.113.9, 198.51.100.7' },
      })
    }
    const same = await send(server.url, {
      path: '/api/slots',
      headers: { ...bad, 'X-Forwarded-For': '198.51.100.7' },
    })
    expect(same.code).toBe('auth.throttled')
    const other = await send(server.url, {
      path: '/api/slots',
      headers: { ...bad, 'X-Forwarded-For': '198.51.100.8' },
    })
    expect(other.code).toBe('auth.invalid')
    // An untrusted peer cannot pick its own key with the header.
    for (let i = 0; i < 10; i++) {
      await send(server.url, {
        path: '/api/slots',
        headers: { ...bad, 'X-Forwarded-For': `192.0.2.${i}` },
        from: '127.7.0.1',
      })
    }
    const spoofed = await send(server.url, {
      path: '/api/slots',
      headers: { ...bad, 'X-Forwarded-For': '192.0.2.99' },
      from: '127.7.0.1',
    })
    expect(spoofed.code).toBe('auth.throttled')
  })

  it('says who the caller is on /api/auth/status, without credentials', async () => {
    const status = async (headers: Record<string, string>, from?: string) =>
      JSON.parse(
        (await send(server.url, { path: '/api/auth/status', headers, ...(from ? { from } : {}) })).text,
      ) as {
        caller: unknown
        enabled: boolean
      }
    const viaToken = await status({ Authorization: `Bearer ${admin}` })
    expect(viaToken).toMatchObject({ enabled: true, caller: { via: 'token', scope: 'admin', label: 'ops' } })
    expect(JSON.stringify(viaToken)).not.toContain(admin)
    expect((await status({ 'X-Forwarded-Email': 'ada@example.com' })).caller).toEqual({
      via: 'proxy',
      scope: 'admin',
      email: 'ada@example.com',
    })
    expect((await status({ 'X-Forwarded-Email': 'ada@example.com' }, '127.0.0.2')).caller).toBeNull()
    expect((await status({ Authorization: 'Bearer wrong' }, '127.6.0.1')).caller).toBeNull()
    expect((await status({})).caller).toBeNull()
  })

  it('ignores a forwarded identity with control characters (Node refuses most of them itself: 400)', async () => {
    const tab = await raw(
      server.url,
      'GET /api/slots HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Forwarded-Email: a\tb@example.com\r\n\r\n',
    )
    expect(tab.status).toBe(401)
    const del = await raw(
      server.url,
      'GET /api/slots HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Forwarded-Email: a\x7fb@example.com\r\n\r\n',
    )
    expect(del.status).toBe(400)
  })
})
