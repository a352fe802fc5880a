/**
 * The browser-origin suite for the chat server: every route of the app (its own route list, so a
 * new route is covered the day it lands) × what a browser page can make a request look like (a
 * DNS-rebound name, another site, another port, an old browser's `Origin`, a sandboxed frame, the
 * chat's own page, no browser at all) × auth off and auth on (the proxy's identity) — against the
 * real server wired from its environment. The verdicts are docs/auth.md "Hosts and origins", by hand.
 */

import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readErrorBody } from '@svc/core'
import { silentLogger } from '@svc/core/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readChatEnv } from '../src/server/env'
import { type ChatServer, startChat } from '../src/server/server'
import { serveChatApp } from './serve-app'

type Mode = 'auth off' | 'auth on'
type Verdict = 'pass' | 'host.forbidden' | 'auth.forbidden'

const SECRET = 'proxy-secret-for-the-browser-suite'

interface Context {
  headers: (port: string) => Record<string, string>
  foreignHost?: boolean
  foreignPage?: boolean
}

const CONTEXTS: Record<string, Context> = {
  'a rebound name (same-origin to the browser)': {
    headers: (port) => ({
      host: `evil.test:${port}`,
      origin: `http://evil.test:${port}`,
      'sec-fetch-site': 'same-origin',
    }),
    foreignHost: true,
  },
  'a rebound name, old browser': {
    headers: () => ({ host: 'evil.test', origin: 'http://evil.test' }),
    foreignHost: true,
  },
  'a page of another site': {
    headers: () => ({ origin: 'https://evil.example', 'sec-fetch-site': 'Cross-Site' }),
    foreignPage: true,
  },
  'a page on another port (same-site)': {
    headers: () => ({ origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-site' }),
    foreignPage: true,
  },
  'another site, old browser (Origin only)': {
    headers: () => ({ origin: 'https://evil.example' }),
    foreignPage: true,
  },
  'a sandboxed frame (Origin: null)': { headers: () => ({ origin: 'null' }), foreignPage: true },
  "the chat's own page": {
    headers: (port) => ({ origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' }),
  },
  "the chat's own page, Host with a default port": {
    headers: () => ({ host: 'localhost:80', origin: 'http://localhost' }),
  },
  'not a browser (curl)': { headers: () => ({}) },
}

function expected(mode: Mode, context: Context, method: string, path: string): Verdict {
  // With auth on the requests carry the proxy's secret: the proxy chose the host by its site name.
  if (context.foreignHost) return mode === 'auth on' ? 'pass' : 'host.forbidden'
  if (!context.foreignPage || path === '/api/health') return 'pass'
  // The voice socket is a GET, but a WebSocket spends the person's credentials like a write.
  const read = (method === 'GET' || method === 'HEAD') && path !== '/api/realtime'
  if (mode === 'auth off' && path.startsWith('/api/')) return 'auth.forbidden'
  return read ? 'pass' : 'auth.forbidden'
}

function concrete(pattern: string): string {
  if (pattern.startsWith('/:file')) return '/favicon.svg'
  return pattern.replace(/:\w+(\{[^}]*\})?/g, 'nope')
}

interface Probe {
  status: number
  code: string | undefined
}

function probe(url: string, method: string, path: string, headers: Record<string, string>): Promise<Probe> {
  const target = new URL(path, url)
  const body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method,
        agent: false,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => {
          text += d
        })
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, code: readErrorBody(text, '').code ?? undefined })
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

function verdict(reply: Probe): string {
  if (reply.status === 403 && (reply.code === 'host.forbidden' || reply.code === 'auth.forbidden'))
    return reply.code
  if (reply.status === 401 || reply.status === 403) return `${reply.status} ${reply.code}`
  return 'pass'
}

/** The chat server in this process, wired from `env` exactly as `svc-chat` is. */
function useChatServer(env: Record<string, string>) {
  const state: { server?: ChatServer; dir?: string } = {}
  beforeAll(async () => {
    state.dir = await mkdtemp(join(tmpdir(), 'svc-chat-origin-'))
    const parsed = readChatEnv({
      SVC_CHAT_HOST: '127.0.0.1',
      SVC_CHAT_PORT: '0',
      SVC_STATE_DIR: state.dir,
      SVC_CHAT_API_URL: 'http://127.0.0.1:9',
      ...env,
    })
    state.server = await startChat({ env: { ...parsed, staticDir: undefined }, logger: silentLogger })
  })
  afterAll(async () => {
    await state.server?.stop()
    if (state.dir) await rm(state.dir, { recursive: true, force: true })
  })
  return () => {
    if (!state.server) throw new Error('the chat server of this suite is not running')
    return state.server.url
  }
}

let routes: [string, string][] = []
beforeAll(async () => {
  await using app = await serveChatApp()
  const all = new Map<string, [string, string]>()
  for (const [method, pattern] of app.routes)
    all.set(`${method} ${concrete(pattern)}`, [method, concrete(pattern)])
  all.set('POST /', ['POST', '/'])
  routes = [...all.values()]
})

function suite(mode: Mode, env: Record<string, string>, credentials: Record<string, string>) {
  describe(`every route, ${mode}`, () => {
    const url = useChatServer(env)

    it('enumerates the routes it walks', () => {
      const paths = routes.map(([m, p]) => `${m} ${p}`)
      for (const route of [
        'GET /api/conversations',
        'POST /api/conversations/nope/messages',
        'GET /api/files/nope',
      ])
        expect(paths).toContain(route)
      expect(paths.length).toBeGreaterThan(15)
    })

    it.each(Object.keys(CONTEXTS))('%s', async (name) => {
      const context = CONTEXTS[name]!
      const port = new URL(url()).port
      const got: Record<string, string> = {}
      const want: Record<string, string> = {}
      for (const [method, path] of routes) {
        const key = `${method} ${path}`
        want[key] = expected(mode, context, method, path)
        got[key] = verdict(await probe(url(), method, path, { ...credentials, ...context.headers(port) }))
      }
      expect(got).toEqual(want)
    })
  })
}

suite('auth off', {}, {})
suite(
  'auth on',
  { SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email', SVC_PROXY_SECRET: SECRET },
  { 'x-forwarded-email': 'ada@example.com', 'x-svc-proxy-secret': SECRET },
)

describe('DNS rebinding against the chat server', () => {
  const url = useChatServer({})
  const allowing = useChatServer({ SVC_ALLOWED_HOSTS: 'chat.example.com' })
  const proxied = useChatServer({ SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email', SVC_PROXY_SECRET: SECRET })

  it('does not let a page on a rebound name read the conversations', async () => {
    const port = new URL(url()).port
    const create = await probe(url(), 'POST', '/api/conversations', {})
    expect(create.status).toBe(201)
    const reply = await probe(url(), 'GET', '/api/conversations', {
      host: `evil.test:${port}`,
      origin: `http://evil.test:${port}`,
      'sec-fetch-site': 'same-origin',
    })
    expect(reply).toEqual({ status: 403, code: 'host.forbidden' })
  })

  it('lets only the proxy (with its secret) vouch for another name, with auth on', async () => {
    const rebound = { host: 'evil.test', origin: 'http://evil.test', 'x-forwarded-email': 'ada@example.com' }
    expect(await probe(proxied(), 'GET', '/api/conversations', rebound)).toEqual({
      status: 403,
      code: 'host.forbidden',
    })
    const wrong = { ...rebound, 'x-svc-proxy-secret': 'a guess' }
    expect(await probe(proxied(), 'GET', '/api/conversations', wrong)).toEqual({
      status: 403,
      code: 'host.forbidden',
    })
    const caddy = {
      ...rebound,
      host: 'llm.example.com',
      origin: 'https://llm.example.com',
      'x-svc-proxy-secret': SECRET,
    }
    expect((await probe(proxied(), 'GET', '/api/conversations', caddy)).status).toBe(200)
  })

  it('answers to a name added with SVC_ALLOWED_HOSTS, port ignored', async () => {
    const reply = await probe(allowing(), 'GET', '/api/conversations', {
      host: 'chat.example.com:443',
      'sec-fetch-site': 'same-origin',
    })
    expect(reply.status).toBe(200)
  })
})
