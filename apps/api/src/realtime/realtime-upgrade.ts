/**
 * `GET /v1/realtime`: OpenAI's Realtime API over a WebSocket upgrade of svc's own HTTP server (`ws`).
 *
 * - Before the upgrade, the same checks as `/v1`: the host rule, then auth — `Authorization: Bearer
 *   <token>`, or, as browsers must send it, the subprotocol `openai-insecure-api-key.<token>` beside
 *   `realtime` (the key is never echoed; `realtime` is the protocol chosen). Scope: `/v1` inference
 *   (`v1-only` works). A forwarded identity (the proxy's sign-in, which a browser sends by itself) is
 *   taken only from a page of the same origin. Refusals are HTTP answers with svc's JSON error body.
 * - Limits (RealtimeLimits): sessions per caller (429 `quota.exceeded` before the upgrade), session
 *   length (`error` event `session.expired`, then close 1000), input buffer (`error` event
 *   `request.too_large`), one message (close 1009).
 * - Each stt, chat and tts call of a session is a plain HTTP request to svc's own `/v1` with the
 *   caller's credentials (self-client.ts): same dispatcher, leases, usage and quotas. A closed socket
 *   aborts them all.
 */
import { randomUUID } from 'node:crypto'
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Principal } from '@svc/auth'
import { renderError, SvcError } from '@svc/core'
import type { Logger, UpgradeStop } from '@svc/core/node'
import { requestPath } from '@svc/dispatcher'
import { WebSocketServer } from 'ws'
import type { CorsOrigins } from '../cors'
import type { Authenticate } from '../middleware/auth'
import { ON_BEHALF_HEADER } from '../usage/quota-gate'
import { PCM_BYTES_PER_SECOND } from './input-audio-buffer'
import { createRealtimeSession } from './realtime-session'
import { createSelfClient } from './self-client'

export const REALTIME_PATH = '/v1/realtime'
/** What a binary frame reads as: an event no schema takes, so the client gets an `error` event. */
const BINARY = '{"type":"binary frame (send audio as base64 in input_audio_buffer.append)"}'
const KEY_PROTOCOL = 'openai-insecure-api-key.'
/** Headers a session's own `/v1` calls carry over from the upgrade (who the caller is). */
// `x-svc-user` (a token acting for a person, as the chat app's does): passed on so that the session's
// calls count for that person's usage and quota, as the same header does on a plain /v1 request.
const CREDENTIAL_HEADERS = ['x-api-key', 'x-forwarded-email', 'x-svc-proxy-secret', ON_BEHALF_HEADER] as const

/** The Realtime API's limits (`SVC_REALTIME_*`; docs/api.md#the-realtime-api). */
export interface RealtimeLimits {
  /** Open sessions per token (per person for the proxy's sign-in, per address with auth off). Default 4. */
  maxSessions: number
  /** Seconds a session may last. Default 3600. */
  maxSessionSeconds: number
  /** Seconds of audio the input buffer holds (pcm16 24 kHz). Default 300. */
  maxBufferSeconds: number
}

export const REALTIME_DEFAULTS: RealtimeLimits = {
  maxSessions: 4,
  maxSessionSeconds: 3600,
  maxBufferSeconds: 300,
}

export interface RealtimeOptions {
  authenticate: Authenticate
  /** The host rule (server.ts's `refuse`): an SvcError refuses the upgrade. */
  refuse?: (req: IncomingMessage) => SvcError | undefined
  logger: Logger
  /**
   * `realtime`: the limits (SVC_REALTIME_*). `corsOrigins` (SVC_CORS_ORIGINS): the other sites whose
   * pages may open a session (browsers apply no CORS to WebSockets, so svc checks `Origin` itself); a
   * page of svc's own origin always may.
   */
  env: { realtime?: Partial<RealtimeLimits>; corsOrigins?: CorsOrigins }
}

/**
 * The `upgrade` listener for `server` (serveHttp's `onUpgrade`): serves `GET /v1/realtime`; other
 * upgrade paths are answered 404 `route.not_found`. When svc stops (closeHttp), each session is told
 * 1001 "going away" and cut at the end of the grace period if its client has not answered.
 */
export function realtimeUpgrade(
  server: Server,
  options: RealtimeOptions,
): (req: IncomingMessage, socket: Duplex, head: Buffer, stop: UpgradeStop) => void {
  const limits = { ...REALTIME_DEFAULTS, ...options.env.realtime }
  // One message: the largest append the buffer could take, base64, plus room for the event around it.
  const maxPayload = Math.ceil((limits.maxBufferSeconds * PCM_BYTES_PER_SECOND * 4) / 3) + 64 * 1024
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.min(maxPayload, 32 * 1024 * 1024),
    handleProtocols: (offered) => (offered.has('realtime') ? 'realtime' : false),
  })
  const open = new Map<string, number>()

  const baseUrl = () => {
    const address = server.address()
    if (!address || typeof address === 'string') throw new Error('svc is not listening')
    const host = ['0.0.0.0', '::', ''].includes(address.address) ? '127.0.0.1' : address.address
    return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
  }

  return (req, socket, head, stop) => {
    socket.on('error', () => socket.destroy())
    void (async () => {
      if (requestPath(req.url) !== REALTIME_PATH) {
        throw new SvcError(
          'route.not_found',
          `no WebSocket at ${requestPath(req.url)}; the Realtime API is ${REALTIME_PATH}`,
        )
      }
      const refused = options.refuse?.(req)
      if (refused) throw refused
      const headers = credentials(req)
      const outcome = await options.authenticate({
        method: 'GET',
        path: REALTIME_PATH,
        header: (name) => (name === 'authorization' ? headers.authorization : one(req.headers[name])),
        peer: () => req.socket.remoteAddress,
      })
      if (!outcome.ok) throw outcome.error
      checkOrigin(req, outcome.principal.kind === 'proxy' ? 'none' : (options.env.corsOrigins ?? '*'))
      const caller = callerKey(outcome.principal, req)
      const count = open.get(caller) ?? 0
      if (count >= limits.maxSessions) {
        throw new SvcError(
          'quota.exceeded',
          `at most ${limits.maxSessions} realtime sessions at once per caller (SVC_REALTIME_MAX_SESSIONS); close one first`,
          { param: 'realtime_sessions' },
        )
      }
      open.set(caller, count + 1)
      const release = () => {
        const n = (open.get(caller) ?? 1) - 1
        if (n > 0) open.set(caller, n)
        else open.delete(caller)
      }
      const query = new URL(req.url ?? '/', 'http://svc').searchParams
      wss.handleUpgrade(req, socket, head, (ws) => {
        stop.onStop(() => ws.close(1001, 'svc is stopping'))
        const sessionId = randomUUID()
        options.logger.debug('realtime session opened', { sessionId, caller: caller.split(':')[0] })
        const session = createRealtimeSession({
          client: createSelfClient({ baseUrl, headers }),
          send: (event) => {
            if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event))
          },
          queryModel: query.get('model') || undefined,
          maxBufferBytes: limits.maxBufferSeconds * PCM_BYTES_PER_SECOND,
          expiresAt: Math.floor(Date.now() / 1000) + limits.maxSessionSeconds,
        })
        const expiry = setTimeout(() => {
          ws.send(
            JSON.stringify({
              type: 'error',
              event_id: `event_${randomUUID().slice(0, 8)}`,
              error: {
                type: 'invalid_request_error',
                code: 'session.expired',
                message: `the session reached its maximum length of ${limits.maxSessionSeconds} s (SVC_REALTIME_MAX_SESSION_SECONDS); open a new one`,
                param: null,
                event_id: null,
              },
            }),
          )
          ws.close(1000, 'session expired')
        }, limits.maxSessionSeconds * 1000)
        ws.on('message', (data, binary) => {
          session.receive(binary ? BINARY : data.toString())
        })
        ws.on('close', () => {
          clearTimeout(expiry)
          session.close()
          release()
          options.logger.debug('realtime session closed', { sessionId })
        })
        ws.on('error', () => ws.terminate())
      })
    })().catch((error: unknown) => reject(socket, error, options.logger))
  }
}

/** The caller's credentials from the upgrade: the subprotocol's key becomes a bearer token. */
function credentials(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  const offered =
    one(req.headers['sec-websocket-protocol'])
      ?.split(',')
      .map((p) => p.trim()) ?? []
  const key = offered.find((p) => p.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length)
  const authorization = one(req.headers.authorization) ?? (key ? `Bearer ${key}` : undefined)
  if (authorization) out.authorization = authorization
  for (const name of CREDENTIAL_HEADERS) {
    const value = one(req.headers[name])
    if (value !== undefined) out[name] = value
  }
  return out
}

/**
 * A page of another site may open a session only when SVC_CORS_ORIGINS lets it read `/v1` answers;
 * never on the proxy's sign-in, which the browser sends by itself (`allowed` is then `none`).
 */
function checkOrigin(req: IncomingMessage, allowed: CorsOrigins): void {
  const origin = one(req.headers.origin)
  if (!origin || allowed === '*' || (Array.isArray(allowed) && allowed.includes(origin))) return
  let host: string | undefined
  try {
    host = new URL(origin).host
  } catch {
    host = undefined
  }
  if (host !== one(req.headers.host)) {
    const why =
      allowed === 'none' ? 'a session signed in through the proxy' : 'SVC_CORS_ORIGINS does not list it'
    throw new SvcError('auth.forbidden', `a page of ${origin} may not open a realtime session (${why})`)
  }
}

function callerKey(principal: Principal, req: IncomingMessage): string {
  if (principal.kind === 'token') return `token:${principal.tokenId}`
  if (principal.kind === 'proxy') return `proxy:${principal.email}`
  return `address:${req.socket.remoteAddress ?? ''}`
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** Answers a refused upgrade with svc's error body (the socket is still plain HTTP). */
function reject(socket: Duplex, error: unknown, logger: Logger): void {
  const rendered = renderError(error)
  if (rendered.unexpected) logger.error('realtime upgrade failed', { error })
  const headers = {
    ...rendered.headers,
    'content-length': String(Buffer.byteLength(rendered.body)),
    connection: 'close',
  }
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
  if (!socket.writable) return void socket.destroy()
  socket.end(
    `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\n${head}\r\n${rendered.body}`,
  )
}
