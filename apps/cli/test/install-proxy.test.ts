/**
 * With the real Caddy: `svc install --auth=basic` renders the config into
 * a staging root; the real Caddy runs that Caddyfile (ports moved high by the installer's own flags,
 * the admin endpoint off, the import path pointed into the staging root), with `tls internal`, in
 * front of whatever listens on the API's and the chat app's ports: first servers that record what
 * reaches them, then the real API and the real chat app (`svc chat`), each started with the env
 * file the installer rendered for it.
 */
import { writeFile } from 'node:fs/promises'
import { type ApiProcess, type FakeUpstream, programAvailable, startFakeUpstream } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliService } from './cli-service'
import { PASSWORD } from './install-harness'
import {
  basicAuth as basic,
  PROXY_HOST as HOST,
  installBehindCaddy,
  type ProxiedInstall,
} from './proxied-install'
import { http, type Recorder, type RequestOptions, startRecorder } from './proxy-client'

const skip = !programAvailable('caddy', 'apt-get install caddy (scripts/setup.sh)')
const SIGNED_IN = { authorization: basic('admin', PASSWORD) }
const SPOOFED = {
  'x-forwarded-email': 'evil@example.com',
  'x-svc-proxy-secret': 'forged',
  x_forwarded_email: 'evil2@example.com',
  x_svc_proxy_secret: 'forged2',
}

describe.skipIf(skip)('svc install --auth=basic, served by the real Caddy', () => {
  let setup: ProxiedInstall
  let ports: ProxiedInstall['ports']
  let secret: string
  let chatSecret: string
  let chatToken: string
  const get = (path: string, options: RequestOptions = {}) => setup.get(path, options)

  beforeAll(async () => {
    setup = await installBehindCaddy()
    ;({ ports, secret, chatSecret, chatToken } = setup)
  }, 120_000)

  afterAll(async () => {
    await setup?.[Symbol.asyncDispose]()
  })

  describe('what reaches the upstreams (recording servers on the API and chat ports)', () => {
    let api: Recorder
    let chatApp: Recorder
    beforeAll(async () => {
      api = await startRecorder(ports.api)
      chatApp = await startRecorder(ports.chat)
    })
    afterAll(async () => {
      await api?.close()
      await chatApp?.close()
    })

    it('asks for basic auth on / and /chat/ (no or wrong credentials: 401), redirects /chat to /chat/', async () => {
      const none = await get('/')
      expect(none.status).toBe(401)
      expect(none.headers['www-authenticate']).toBe('Basic realm="svc"')
      expect((await get('/chat/')).status).toBe(401)
      expect((await get('/', { headers: { authorization: basic('admin', 'wrong password') } })).status).toBe(
        401,
      )
      expect((await get('/', { headers: { authorization: basic('mallory', PASSWORD) } })).status).toBe(401)
      const redir = await get('/chat')
      expect([redir.status, redir.headers.location]).toEqual([308, '/chat/'])
      expect(api.seen).toHaveLength(0)
    })

    /**
     * Sends `path` signed in, with spoofed identity headers, and checks what `upstream` received: the
     * request at `reached`, as the signed-in user, with the proxy's secret, without Basic or spoofs.
     */
    async function expectSignedInAt(upstream: Recorder, path: string, reached: string, proxySecret = secret) {
      const r = await get(path, { headers: { ...SIGNED_IN, ...SPOOFED } })
      expect(r.status).toBe(200)
      const { url, headers } = upstream.last()
      expect(url).toBe(reached)
      expect(headers['x-forwarded-email']).toBe('admin')
      expect(headers['x-svc-proxy-secret']).toBe(proxySecret)
      expect(headers).not.toHaveProperty('authorization')
      expect(headers).not.toHaveProperty('x_forwarded_email')
      return headers
    }

    it('the signed-in user reaches the API as itself: spoofed identity and secret replaced, Basic not forwarded', async () => {
      const headers = await expectSignedInAt(api, '/slots?x=1', '/slots?x=1')
      expect(headers).not.toHaveProperty('x_svc_proxy_secret')
      expect(headers['x-forwarded-proto']).toBe('https')
    })

    it.each(['/v1/models', '/V1/models', '//v1/models', '/v1/../v1/models'])(
      'no identity reaches the API on %s without basic auth, whatever the client sends',
      async (path) => {
        const r = await get(path, { headers: SPOOFED })
        expect(r.status).toBe(200)
        const { headers } = api.last()
        expect(headers).not.toHaveProperty('x-forwarded-email')
        expect(headers).not.toHaveProperty('x_forwarded_email')
        expect(headers).not.toHaveProperty('x_svc_proxy_secret')
        expect(headers['x-svc-proxy-secret']).toBe(secret)
      },
    )

    it('passes a bearer token on /v1 as it is, with no identity', async () => {
      await get('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: 'Bearer svc_abc.def', ...SPOOFED },
      })
      const { headers } = api.last()
      expect(headers.authorization).toBe('Bearer svc_abc.def')
      expect(headers).not.toHaveProperty('x-forwarded-email')
    })

    it('a signed-in browser calling /v1 is checked and becomes the identity; its Basic header is not forwarded', async () => {
      expect(
        (await get('/v1/models', { headers: { authorization: basic('admin', 'nope nope') } })).status,
      ).toBe(401)
      const r = await get('/v1/models', { headers: { ...SIGNED_IN, ...SPOOFED } })
      expect(r.status).toBe(200)
      const { headers } = api.last()
      expect(headers['x-forwarded-email']).toBe('admin')
      expect(headers).not.toHaveProperty('authorization')
    })

    it('/chat/ reaches the chat app without the prefix, as the signed-in user, with the secret and without Basic', async () => {
      await expectSignedInAt(chatApp, '/chat/c/1?x=2', '/c/1?x=2', chatSecret)
    })

    it('plain HTTP is redirected to HTTPS', async () => {
      const r = await http(ports.http, '/chat/x?y=1', { host: HOST })
      expect(r.status).toBe(308)
      const location = new URL(r.headers.location ?? '')
      expect([location.protocol, location.hostname, location.pathname, location.search]).toEqual([
        'https:',
        HOST,
        '/chat/x',
        '?y=1',
      ])
    })

    it('a signed-in POST reaches the API with its body (the gate’s check does not take it)', async () => {
      const body = JSON.stringify({ model: 'x', pad: 'y'.repeat(100_000) })
      const r = await get('/api/slots/x/load', { method: 'POST', headers: SIGNED_IN, body })
      expect(r.status).toBe(200)
      expect([api.last().method, api.last().body.length]).toEqual(['POST', body.length])
    })

    it('throttles wrong passwords per client address: 429 with Retry-After; another client still signs in; one more try after the window', async () => {
      const from = (localAddress: string, password: string) =>
        get('/', { headers: { authorization: basic('admin', password) }, localAddress })
      const [guesser, other] = ['127.0.0.7', '127.0.0.8']
      // 10 at once, and one more for every 6 s the guessing took (bcrypt is slow on a busy machine)
      const started = Date.now()
      let throttled = await from(guesser, 'guess number 0')
      let tries = 1
      while (throttled.status === 401 && tries < 30)
        throttled = await from(guesser, `guess number ${tries++}`)
      expect(throttled.status).toBe(429)
      expect(tries - 1).toBeGreaterThanOrEqual(10)
      expect(tries - 1).toBeLessThanOrEqual(10 + Math.floor((Date.now() - started) / 6000) + 1)
      const retryAfter = Number(throttled.headers['retry-after'])
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(JSON.parse(throttled.body).error.code).toBe('auth.throttled')
      expect((await from(guesser, 'one more guess')).status).toBe(429)
      // another client is not held up by the guesser
      expect(
        (await get('/', { headers: { authorization: basic('admin', PASSWORD) }, localAddress: other }))
          .status,
      ).toBe(200)
      const seen = api.seen.length
      // after the window one more guess is let through, and the next is refused again
      await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200))
      expect((await from(guesser, 'after the window')).status).toBe(401)
      expect((await from(guesser, 'and again')).status).toBe(429)
      expect(api.seen.length).toBe(seen) // nothing of the guesser reached the API
      // only the proxy may ask the gate: straight to its port, without the secret, it answers nothing
      const direct = await http(ports.gate, '/check', {
        headers: { authorization: basic('admin', PASSWORD), 'x-forwarded-for': '10.9.8.7' },
      })
      expect(direct.status).toBe(403)
    }, 60_000)
  })

  describe('in front of the real API and chat app, started with the env files the installer rendered', () => {
    let api: ApiProcess
    let chat: CliService
    let upstream: FakeUpstream

    beforeAll(async () => {
      upstream = await startFakeUpstream({ streamChunks: 6, chunkIntervalMs: 300 })
      await writeFile(
        setup.root.path('/etc/svc/upstreams.toml'),
        `[[upstream]]\nname = "fake"\nbase_url = "${upstream.url}/v1"\n`,
      )
      expect(await setup.root.env('/etc/svc/api.env')).toMatchObject({
        SVC_PORT: String(ports.api),
        SVC_HOST: '127.0.0.1',
        SVC_AUTH_ENABLED: '1',
      })
      api = await setup.startApi()
      expect(api.port).toBe(ports.api)
      chat = await setup.startChat()
      expect(chat.url).toBe(`http://127.0.0.1:${ports.chat}`)
    }, 60_000)

    afterAll(async () => {
      expect(await chat?.stop()).toBe(0) // SIGTERM, as systemd stops it
      await api?.stop()
      await upstream?.stop()
    })

    it('sees the signed-in user as admin', async () => {
      const r = await get('/api/auth/status', { headers: { ...SIGNED_IN, ...SPOOFED } })
      expect(r.status).toBe(200)
      expect(JSON.parse(r.body)).toMatchObject({
        enabled: true,
        caller: { via: 'proxy', scope: 'admin', email: 'admin' },
      })
      expect((await get('/api/slots', { headers: SIGNED_IN })).status).toBe(200)
    })

    it.each([
      ['POST', '/v1/chat/completions'],
      // Caddy's path matchers ignore case: /V1 takes the /v1 route (no basic auth) to the API, where
      // the spoofed identity must count for nothing; the API treats other spellings of /v1 and /api
      // as admin-only (no open dashboard read), so even a path it has no route for is refused.
      ['POST', '/V1/chat/completions'],
      ['GET', '/V1/models'],
      ['GET', '/API/slots'],
      ['GET', '//v1/models'],
      ['GET', '/v1/../api/slots'],
    ])('never sees a spoofed identity: %s %s without credentials is 401', async (method, path) => {
      const r = await get(path, {
        method,
        headers: { ...SPOOFED, 'x-forwarded-email': 'admin', 'content-type': 'application/json' },
        ...(method === 'POST'
          ? { body: JSON.stringify({ model: 'fake/m', messages: [{ role: 'user', content: 'hi' }] }) }
          : {}),
      })
      expect(r.status).toBe(401)
    })

    it('/v1/chat/completions without a token is 401 auth.required; with the chat app’s token it streams as the upstream writes', async () => {
      const body = JSON.stringify({
        model: 'fake/m',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })
      const refused = await get('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(refused.status).toBe(401)
      expect(JSON.parse(refused.body).error.code).toBe('auth.required')

      let firstEventAt: number | undefined
      const r = await get('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${chatToken}` },
        body,
        onChunk: (chunk) => {
          if (firstEventAt === undefined && chunk.includes('data: ')) firstEventAt = Date.now()
        },
      })
      const endedAt = Date.now()
      expect(r.status).toBe(200)
      expect(r.headers['content-type']).toMatch(/^text\/event-stream/)
      expect(r.headers['content-encoding']).toBeUndefined()
      expect(r.body).toContain('data: [DONE]')
      // six chunks 300 ms apart: the first one is here long before the last
      expect(endedAt - (firstEventAt ?? endedAt)).toBeGreaterThan(900)
    })

    it('refuses a forwarded identity sent straight to its port without the proxy secret', async () => {
      const direct = (headers: Record<string, string>) => http(ports.api, '/api/slots', { headers })
      expect((await direct({ 'x-forwarded-email': 'admin' })).status).toBe(401)
      expect((await direct({ 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': 'forged' })).status).toBe(
        401,
      )
      expect((await direct({ 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': secret })).status).toBe(200)
      // what the chat app holds does not make it the admin of the API
      expect(chatSecret).not.toBe(secret)
      expect((await direct({ 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': chatSecret })).status).toBe(
        401,
      )
    })

    it('/chat/ is the chat app, signed in as the basic-auth user whatever identity the client sends', async () => {
      const page = await get('/chat/', { headers: { ...SIGNED_IN, accept: 'text/html' } })
      expect(page.status, 'the chat front end is built by pnpm build (scripts/setup.sh)').toBe(200)
      expect(page.headers['content-type']).toMatch(/^text\/html/)
      expect(page.body).toContain('<title>svc chat</title>')
      const me = await get('/chat/api/me', { headers: { ...SIGNED_IN, ...SPOOFED } })
      expect(me.status).toBe(200)
      expect(JSON.parse(me.body)).toMatchObject({ identity: 'admin', auth: 'proxy' })
      expect((await get('/chat/api/me', { headers: SPOOFED })).status).toBe(401)
    })

    it('the chat app reaches the API with the token the installer minted for it', async () => {
      const r = await get('/chat/api/models', { headers: SIGNED_IN })
      expect(r.status, r.body).toBe(200)
      expect(JSON.stringify(JSON.parse(r.body))).toContain('"primary"')
      // the token stays on the server side
      expect(r.body).not.toContain(chatToken)
    })

    it('the chat app refuses a forwarded identity sent straight to its port without the proxy secret', async () => {
      const direct = (headers: Record<string, string>) => http(ports.chat, '/api/me', { headers })
      expect((await direct({ 'x-forwarded-email': 'admin' })).status).toBe(401)
      expect((await direct({ 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': 'forged' })).status).toBe(
        401,
      )
      const withSecret = await direct({ 'x-forwarded-email': 'admin', 'x-svc-proxy-secret': chatSecret })
      expect([withSecret.status, JSON.parse(withSecret.body).identity]).toEqual([200, 'admin'])
    })
  })
})
