/**
 * Every route class × every kind of caller, against the real server with auth on, checked against
 * the scope table of docs/auth.md#scopes written out here by hand (not imported from @svc/auth's policy).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { passedAuth, type Reply, type SendOptions, send, useAuthServer } from './auth-harness'

type Scope = 'admin' | 'all' | 'v1-only' | 'read-only'
type Outcome = 'pass' | 'auth.required' | 'auth.invalid' | 'auth.forbidden'

/**
 * The Ollama API (docs/ollama.md): its lists are as open as `/v1/models`, its inference is `/v1`
 * inference, `pull` and the routes answered 501 are admin mutations. Refusals are in Ollama's shape.
 */
const OLLAMA_ROUTES: Record<string, SendOptions & { open?: boolean; ollama: true }> = {
  'ollama tags': { path: '/api/tags', open: true, ollama: true },
  'ollama ps': { path: '/api/ps', open: true, ollama: true },
  'ollama version': { path: '/api/version', open: true, ollama: true },
  'ollama show': { method: 'POST', path: '/api/show', body: '{"model":"nope"}', open: true, ollama: true },
  'ollama chat': {
    method: 'POST',
    path: '/api/chat',
    body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
    ollama: true,
  },
  'ollama generate': {
    method: 'POST',
    path: '/api/generate',
    body: '{"model":"nope","prompt":"x"}',
    ollama: true,
  },
  'ollama embed': { method: 'POST', path: '/api/embed', body: '{"model":"nope","input":"x"}', ollama: true },
  'ollama embeddings': {
    method: 'POST',
    path: '/api/embeddings',
    body: '{"model":"nope","prompt":"x"}',
    ollama: true,
  },
  'ollama pull': { method: 'POST', path: '/api/pull', body: '{"model":"nope"}', ollama: true },
  'ollama create (501)': { method: 'POST', path: '/api/create', body: '{}', ollama: true },
  // No body: Node's client sends a DELETE body without a length, which no server can frame.
  'ollama delete (501)': { method: 'DELETE', path: '/api/delete', ollama: true },
}
const OLLAMA_INFERENCE = ['ollama chat', 'ollama generate', 'ollama embed', 'ollama embeddings']

/** One request per route class. Routes of later issues may not exist yet: only auth's verdict counts. */
const ROUTES: Record<string, SendOptions & { open?: boolean; ollama?: true }> = {
  'open endpoint': { path: '/api/status', open: true },
  'open endpoint (metrics)': { path: '/api/metrics', open: true },
  '/v1/models': { path: '/v1/models', open: true },
  '/v1 inference (chat)': {
    method: 'POST',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
  },
  '/v1 inference (embeddings)': {
    method: 'POST',
    path: '/v1/embeddings',
    body: '{"model":"nope","input":"x"}',
  },
  '/v1 inference (responses)': {
    method: 'POST',
    path: '/v1/responses',
    body: '{"model":"nope","input":"hi"}',
  },
  '/v1 inference (responses input_tokens)': {
    method: 'POST',
    path: '/v1/responses/input_tokens',
    body: '{"model":"nope","input":"hi"}',
  },
  '/v1 inference (chat input_tokens)': {
    method: 'POST',
    path: '/v1/chat/completions/input_tokens',
    body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
  },
  '/v1 inference (messages)': {
    method: 'POST',
    path: '/v1/messages',
    body: JSON.stringify({ model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  },
  '/v1 inference (messages count_tokens)': {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
  },
  '/api read (slots)': { path: '/api/slots' },
  '/api read (models)': { path: '/api/models' },
  'slot mutation': { method: 'POST', path: '/api/slots/nope/unload', body: '{}' },
  'slot logs (follow)': { path: '/api/slots/nope/logs?follow=1' },
  'create a custom slot': { method: 'POST', path: '/api/slots', body: '{}' },
  'pull a model': { method: 'POST', path: '/api/models/nope/pull' },
  'delete a model': { method: 'DELETE', path: '/api/models/nope' },
  'tts voices (v1)': { path: '/v1/audio/voices' },
  'token management (list)': { path: '/api/auth/tokens' },
  'token management (revoke)': { method: 'DELETE', path: '/api/auth/tokens/AAAAAAAAAAAA' },
  'image cache': { path: '/api/images/cache/00000000-0000-4000-8000-000000000000.png' },
  'other /api mutation': {
    method: 'DELETE',
    path: '/api/images/cache/00000000-0000-4000-8000-000000000000.png',
  },
  // Open: the page must load before it can ask for a token; it holds no data.
  dashboard: { path: '/index.html', open: true },
  'dashboard client route': { path: '/settings', open: true },
  ...OLLAMA_ROUTES,
}

/** The inference routes: every surface on the dispatcher is `/v1` inference. */
const INFERENCE = Object.keys(ROUTES).filter((r) => r.startsWith('/v1 inference'))

/** The scope table (docs/auth.md#scopes), by route (the open ones pass for everyone). */
const ALLOWED: Record<Scope, string[]> = {
  admin: Object.keys(ROUTES),
  all: [
    ...INFERENCE,
    'tts voices (v1)',
    '/api read (slots)',
    '/api read (models)',
    'slot logs (follow)',
    'image cache',
    ...OLLAMA_INFERENCE,
  ],
  'v1-only': [...INFERENCE, 'tts voices (v1)', 'image cache', ...OLLAMA_INFERENCE],
  'read-only': ['/api read (slots)', '/api read (models)', 'slot logs (follow)', 'image cache'],
}

interface Caller {
  /** Headers; `$admin` etc. stand for that scope's token, `$revoked` for a revoked one. */
  headers: Record<string, string>
  /** The token is in `x-api-key`, which counts on `/v1` only: elsewhere it is no credential. */
  apiKeyOnly?: boolean
  from?: string
  /** A scope (the caller's effective identity) or the refusal every closed route gives. */
  is: Scope | 'auth.required' | 'auth.invalid'
}

const EMAIL = { 'X-Forwarded-Email': 'ada@example.com' }
// Failing callers get a throttling key of their own for every request (their peer address, or the
// client the trusted proxy names in X-Forwarded-For), so the matrix never trips the failure throttle.
const CALLERS: Record<string, Caller> = {
  none: { headers: {}, is: 'auth.required' },
  'malformed bearer': {
    headers: { Authorization: 'Bearer not-a-token' },
    from: '127.0.0.21',
    is: 'auth.invalid',
  },
  'revoked bearer': { headers: { Authorization: 'Bearer $revoked' }, from: '127.0.0.22', is: 'auth.invalid' },
  'wrong-case scheme with a valid token': {
    headers: { Authorization: 'bearer $admin' },
    from: '127.0.0.23',
    is: 'auth.invalid',
  },
  'admin token': { headers: { Authorization: 'Bearer $admin' }, is: 'admin' },
  'all token': { headers: { Authorization: 'Bearer $all' }, is: 'all' },
  'v1-only token': { headers: { Authorization: 'Bearer $v1-only' }, is: 'v1-only' },
  'read-only token': { headers: { Authorization: 'Bearer $read-only' }, is: 'read-only' },
  'forwarded email from the trusted proxy': { headers: EMAIL, is: 'admin' },
  'forwarded email from an untrusted address (127.0.0.2)': {
    headers: EMAIL,
    from: '127.0.0.2',
    is: 'auth.required',
  },
  'Basic credentials and a trusted forwarded email': {
    headers: { Authorization: 'Basic YWRhOnNlY3JldA==', ...EMAIL },
    is: 'admin',
  },
  'Basic credentials alone': { headers: { Authorization: 'Basic YWRhOnNlY3JldA==' }, is: 'auth.required' },
  'v1-only token and a trusted forwarded email (bearer wins)': {
    headers: { Authorization: 'Bearer $v1-only', ...EMAIL },
    is: 'v1-only',
  },
  'malformed bearer and a trusted forwarded email': {
    headers: { Authorization: 'Bearer svc_garbage', 'X-Forwarded-For': '$client', ...EMAIL },
    is: 'auth.invalid',
  },
  'revoked bearer and a trusted forwarded email': {
    headers: { Authorization: 'Bearer $revoked', 'X-Forwarded-For': '$client', ...EMAIL },
    is: 'auth.invalid',
  },
  // Anthropic's SDKs send the token as x-api-key: a token like a bearer one on /v1, nothing on /api.
  'admin token in x-api-key': { headers: { 'x-api-key': '$admin' }, is: 'admin', apiKeyOnly: true },
  'v1-only token in x-api-key': { headers: { 'x-api-key': '$v1-only' }, is: 'v1-only', apiKeyOnly: true },
  'read-only token in x-api-key': {
    headers: { 'x-api-key': '$read-only' },
    is: 'read-only',
    apiKeyOnly: true,
  },
  'revoked token in x-api-key': {
    headers: { 'x-api-key': '$revoked' },
    from: '127.0.0.24',
    is: 'auth.invalid',
    apiKeyOnly: true,
  },
  'read-only bearer and an admin x-api-key (bearer wins)': {
    headers: { Authorization: 'Bearer $read-only', 'x-api-key': '$admin' },
    is: 'read-only',
  },
  'read-only token and an untrusted forwarded email': {
    headers: { Authorization: 'Bearer $read-only', ...EMAIL },
    from: '127.0.0.2',
    is: 'read-only',
  },
}

const SECRET = 'k3Jb9-proxy-secret-for-the-test-0123456789'
const SECRET_CALLERS: Record<string, Caller> = {
  'trusted forwarded email with the right proxy secret': {
    headers: { ...EMAIL, 'X-Svc-Proxy-Secret': SECRET },
    is: 'admin',
  },
  'trusted forwarded email without the proxy secret': { headers: EMAIL, is: 'auth.required' },
  'trusted forwarded email with a wrong proxy secret': {
    headers: { ...EMAIL, 'X-Svc-Proxy-Secret': `${SECRET}x` },
    is: 'auth.required',
  },
  'forwarded email with the right secret from an untrusted address': {
    headers: { ...EMAIL, 'X-Svc-Proxy-Secret': SECRET },
    from: '127.0.0.2',
    is: 'auth.required',
  },
  'all token with a proxy-vouched email (bearer wins)': {
    headers: { Authorization: 'Bearer $all', ...EMAIL, 'X-Svc-Proxy-Secret': SECRET },
    is: 'all',
  },
  'no credentials': { headers: {}, is: 'auth.required' },
}

function expected(caller: Caller, route: string): Outcome {
  if (ROUTES[route]?.open) return 'pass'
  if (caller.apiKeyOnly && !ROUTES[route]?.path.startsWith('/v1/')) return 'auth.required'
  if (caller.is === 'auth.required' || caller.is === 'auth.invalid') return caller.is
  return ALLOWED[caller.is].includes(route) ? 'pass' : 'auth.forbidden'
}

function outcome(reply: Reply): Outcome | string {
  if (passedAuth(reply)) return 'pass'
  return `${reply.code}`
}

function matrix(name: string, env: Record<string, string>, callers: Record<string, Caller>) {
  describe(name, () => {
    const server = useAuthServer(env)
    const tokens: Record<string, string> = {}
    beforeAll(async () => {
      for (const scope of ['admin', 'all', 'v1-only', 'read-only'] as const) {
        tokens[scope] = (await server.mint(scope)).token
      }
      const revoked = await server.mint('admin', 'revoked')
      await server.revoke(revoked.id)
      tokens.revoked = revoked.token
    })

    const cases = Object.keys(callers).flatMap((caller, ci) =>
      Object.keys(ROUTES).map(
        (route, ri) => [caller, route, expected(callers[caller]!, route), ci, ri] as const,
      ),
    )
    it.each(cases)('%s → %s: %s', async (callerName, route, want, ci, ri) => {
      const caller = callers[callerName]!
      const client = `198.51.${ci}.${ri + 1}`
      const headers = Object.fromEntries(
        Object.entries(caller.headers).map(([k, v]) => [
          k,
          v.replace(/\$([\w-]+)/, (_, s: string) => (s === 'client' ? client : tokens[s]!)),
        ]),
      )
      const failing = caller.is === 'auth.invalid' && caller.from !== undefined
      const from = failing ? `127.${ci + 1}.0.${ri + 1}` : (caller.from ?? '127.0.0.1')
      const reply = await send(server.url, { ...ROUTES[route]!, headers, from })
      expect(outcome(reply), `${reply.status} ${reply.text}`).toBe(want)
      if (want === 'auth.required') {
        expect(reply.status).toBe(401)
        expect(reply.headers['www-authenticate']).toMatch(/^Bearer\b/)
      }
      // Each surface refuses in its own shape: Anthropic's under /v1/messages, svc's code kept.
      if (want !== 'pass' && ROUTES[route]!.path.startsWith('/v1/messages')) {
        expect(JSON.parse(reply.text)).toMatchObject({ type: 'error', error: { svc_code: want } })
      }
      if (want === 'auth.invalid') expect(reply.status).toBe(401)
      if (want === 'auth.forbidden') expect(reply.status).toBe(403)
      if (ROUTES[route]!.ollama && want !== 'pass') {
        // Ollama's error shape: a string, which Ollama's clients raise as the message.
        expect(typeof (JSON.parse(reply.text) as { error: unknown }).error).toBe('string')
      }
    })
  })
}

matrix('auth matrix (trusted proxies: 127.0.0.1 only)', { SVC_TRUSTED_PROXIES: '127.0.0.1' }, CALLERS)
matrix(
  'auth matrix with SVC_PROXY_SECRET set',
  { SVC_TRUSTED_PROXIES: '127.0.0.1', SVC_PROXY_SECRET: SECRET },
  SECRET_CALLERS,
)
