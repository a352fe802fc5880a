/**
 * The browser-origin suite: every route of the API (the Hono app's route list and the dispatcher's
 * inference table, so a new route is covered the day it lands) × what a browser page can make a
 * request look like (a DNS-rebound name, another site, another port, an old browser's `Origin`, a
 * sandboxed frame, svc's own page, the user typing the URL, no browser at all) × auth off, auth on
 * with the proxy's identity, and auth on with a bearer token — against the real server. The verdicts
 * are the rules of docs/auth.md "Hosts and origins", written out here by hand.
 */

import { request } from 'node:http'
import { readErrorBody } from '@svc/core'
import { INFERENCE_ROUTES } from '@svc/dispatcher'
import { type FakeUpstream, startFakeUpstream } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, useAuthServer } from './auth-harness'

type Mode = 'auth off' | 'auth on, proxy identity' | 'auth on, admin bearer'
type Verdict = 'pass' | 'host.forbidden' | 'auth.forbidden'

interface Context {
  headers: (port: string) => Record<string, string>
  /** The Host is not one svc answers to (DNS rebinding). */
  foreignHost?: boolean
  /** A page of another site or origin made the browser send it. */
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
  'a rebound name, not a browser': {
    headers: () => ({ host: 'rebind.127.0.0.1.nip.io' }),
    foreignHost: true,
  },
  'a page of another site': {
    headers: () => ({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
    foreignPage: true,
  },
  'a page on another port (same-site)': {
    headers: () => ({ origin: 'http://127.0.0.1:3001', 'sec-fetch-site': 'same-site' }),
    foreignPage: true,
  },
  'another site, old browser (Origin only)': {
    headers: () => ({ origin: 'https://evil.example' }),
    foreignPage: true,
  },
  'a sandboxed frame (Origin: null)': { headers: () => ({ origin: 'null' }), foreignPage: true },
  "svc's own page": {
    headers: (port) => ({ origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' }),
  },
  "svc's own page by its name": {
    headers: (port) => ({
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
      'sec-fetch-site': 'same-origin',
    }),
  },
  'typed by the user': { headers: () => ({ 'sec-fetch-site': 'none' }) },
  'not a browser (curl, an SDK)': { headers: () => ({}) },
}

/** The rules, by hand: the host rule first, then the same-site rule as each mode has it. */
function expected(mode: Mode, context: Context, method: string, path: string): Verdict {
  if (context.foreignHost) return 'host.forbidden'
  if (!context.foreignPage || mode === 'auth on, admin bearer') return 'pass'
  const read = method === 'GET' || method === 'HEAD'
  if (mode === 'auth on, proxy identity') return read ? 'pass' : 'auth.forbidden'
  if (path.startsWith('/api/'))
    return read && path.startsWith('/api/images/cache/') ? 'pass' : 'auth.forbidden'
  if (path.startsWith('/v1/')) return 'pass' // CORS; hosted upstreams are refused below
  return read ? 'pass' : 'auth.forbidden'
}

/** A concrete path for a route pattern (`:slot`, `:id{.+}` → a value no route holds). */
function concrete(pattern: string): string {
  if (pattern.startsWith('/api/images/cache/'))
    return '/api/images/cache/00000000-0000-4000-8000-000000000000.png'
  return pattern.replace(/:\w+(\{[^}]*\})?/g, 'nope')
}

/** Every route of the running server: the app's, the dispatcher's, and the dashboard's files. */
function routesOf(server: AuthServer): [string, string][] {
  const all = new Map<string, [string, string]>()
  const add = (method: string, path: string) => all.set(`${method} ${path}`, [method, path])
  for (const [method, pattern] of server.routes) add(method, concrete(pattern))
  for (const path of Object.keys(INFERENCE_ROUTES)) add('POST', path)
  add('GET', '/')
  add('GET', '/settings')
  add('POST', '/settings')
  return [...all.values()]
}

interface Probe {
  status: number
  code: string | undefined
}

/** One request on its own connection; an answer that streams (SSE) counts by its status line. */
function probe(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  // Node sends a DELETE's body without a length: only methods that take one get one.
  body = ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined,
): Promise<Probe> {
  const target = new URL(path, url)
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
        if ((res.statusCode ?? 0) < 400) {
          res.destroy()
          resolve({ status: res.statusCode ?? 0, code: undefined })
          return
        }
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

function verdict(reply: Probe): Verdict | string {
  if (reply.status === 403 && (reply.code === 'host.forbidden' || reply.code === 'auth.forbidden'))
    return reply.code
  if (reply.status === 401 || reply.status === 403) return `${reply.status} ${reply.code}`
  return 'pass'
}

function suite(mode: Mode, env: Record<string, string>) {
  describe(`every route, ${mode}`, () => {
    const server = useAuthServer(env)
    const credentials: Record<string, string> = {}
    beforeAll(async () => {
      if (mode === 'auth on, proxy identity') credentials['x-forwarded-email'] = 'ops@example.com'
      if (mode === 'auth on, admin bearer')
        credentials.authorization = `Bearer ${(await server.mint('admin')).token}`
    })

    it('enumerates the routes it walks', () => {
      const paths = routesOf(server).map(([m, p]) => `${m} ${p}`)
      // A sample of each family, so that a broken enumeration cannot pass with nothing to walk.
      for (const route of [
        'POST /api/auth/tokens',
        'GET /api/events',
        'POST /v1/chat/completions',
        'GET /v1/models',
      ])
        expect(paths).toContain(route)
      expect(paths.length).toBeGreaterThan(30)
    })

    it.each(Object.keys(CONTEXTS))('%s', async (name) => {
      const context = CONTEXTS[name]!
      const port = new URL(server.url).port
      const got: Record<string, string> = {}
      const want: Record<string, string> = {}
      for (const [method, path] of routesOf(server)) {
        const key = `${method} ${path}`
        want[key] = expected(mode, context, method, path)
        got[key] = verdict(
          await probe(server.url, method, path, { ...credentials, ...context.headers(port) }),
        )
      }
      expect(got).toEqual(want)
    })
  })
}

suite('auth off', { SVC_AUTH_ENABLED: '0' })
suite('auth on, proxy identity', { SVC_TRUSTED_PROXIES: '127.0.0.1' })
suite('auth on, admin bearer', {})

describe('hosted upstreams, which spend the operator’s API key', () => {
  let hosted: FakeUpstream
  beforeAll(async () => {
    hosted = await startFakeUpstream({})
  })
  afterAll(async () => {
    await hosted?.stop('SIGKILL')
  })
  const upstreams = async ({ configDir }: { configDir: string }) => {
    const { mkdir, writeFile } = await import('node:fs/promises')
    await mkdir(configDir, { recursive: true })
    await writeFile(
      `${configDir}/upstreams.toml`,
      `[[upstream]]\nname = "acct"\nbase_url = "${hosted.url}/v1"\napi_key_env = "ACCT_KEY"\n`,
    )
  }
  const chat = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] })
  const server = useAuthServer({ SVC_AUTH_ENABLED: '0', ACCT_KEY: 'sk-operator' }, upstreams)
  const ask = (model: string, headers: Record<string, string>) =>
    probe(server.url, 'POST', '/v1/chat/completions', headers, chat(model))

  it('with auth off, refuses them to a page of another site, not to svc’s own page or a program', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1:3001', 'sec-fetch-site': 'same-site' },
    ]
    for (const headers of foreign) {
      const reply = await ask('acct/gpt-x', headers)
      expect(reply, JSON.stringify(headers)).toEqual({ status: 403, code: 'auth.forbidden' })
    }
    expect(await ask('acct/gpt-x', { 'sec-fetch-site': 'same-origin' })).toMatchObject({ status: 200 })
    expect(await ask('acct/gpt-x', {})).toMatchObject({ status: 200 })
  })

  it('with auth off, leaves svc’s own models open to other sites (CORS)', async () => {
    const reply = await ask('nope', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
    expect(reply).toEqual({ status: 404, code: 'model.not_found' })
  })
})
