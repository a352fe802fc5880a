import type { IncomingMessage } from 'node:http'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { SvcError } from '@svc/core'
import type { Logger, UpgradeStop } from '@svc/core/node'
import type { RawData, WebSocket, WebSocketServer } from 'ws'
import { ON_BEHALF_HEADER } from '../upstream/allowance'
import { apiFailure } from '../upstream/svc-api'
import { createTurnRecorder } from './turn-recorder'
import { VOICE_UPGRADE, type VoiceGrant, type VoiceUpgrade } from './voice-grant'

/** The largest message either side may send (an audio chunk is a few KB; svc's events are small). */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024
/** What the browser may send before svc has answered the upgrade; more closes the session. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024
/** An error answer of svc's read at most this far. */
const MAX_ERROR_BYTES = 64 * 1024

export interface VoiceRelayOptions {
  /** The chat app: its `GET api/realtime` route is the upgrade's gate (every check a request gets). */
  app: { fetch(request: Request, env: Record<string, unknown>): Response | Promise<Response> }
  /** svc's base URL (`SVC_CHAT_API_URL`, no trailing slash). */
  apiUrl: string
  /** The chat app's token for svc (`SVC_CHAT_API_TOKEN`); never sent to the browser. */
  apiToken: string | undefined
  logger: Logger
}

/**
 * The voice mode's WebSocket, for the chat server's `upgrade` event: the request goes through the
 * chat app first (host, identity, same origin, the conversation); refused, the app's own error answer
 * is written and the socket closed. Accepted, the browser's WebSocket is relayed message by message to
 * svc's `/v1/realtime?model=…` with the chat app's token (and `X-Svc-User` for the person), after the
 * conversation so far (the grant's context). svc refusing or unreachable reaches the page as a
 * Realtime `error` event with svc's code, then a close with code 4000 + the HTTP status. Each finished
 * turn is saved in the conversation and announced to the page as `chat.turn.saved` {user, assistant}.
 * Either side closing closes the other; the grant's signal (Stop, shutdown) closes both. When the
 * chat server stops (closeHttp), the page is told 1001 "going away" and its socket is cut at the end
 * of the grace period if the page has not answered.
 */
export function createVoiceRelay(options: VoiceRelayOptions) {
  const { logger } = options
  // `ws` is loaded with the first voice session: an idle chat server does without it.
  let ws: typeof import('ws') | undefined
  let sockets: WebSocketServer | undefined
  const target = `${options.apiUrl.replace(/^http/, 'ws')}/v1/realtime`

  function relay(client: WebSocket, grant: VoiceGrant): void {
    const headers: Record<string, string> = {}
    if (options.apiToken) headers.authorization = `Bearer ${options.apiToken}`
    if (grant.person) headers[ON_BEHALF_HEADER] = grant.person
    const { WebSocket } = ws!
    const upstream = new WebSocket(`${target}?model=${encodeURIComponent(grant.model)}`, {
      headers,
      maxPayload: MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
    })
    const queue: { data: RawData; binary: boolean }[] = []
    let queued = 0
    let failed = false
    const recorder = createTurnRecorder((turn) => {
      try {
        const saved = grant.record(turn)
        if (saved) send(client, JSON.stringify({ type: 'chat.turn.saved', ...saved }))
      } catch (error) {
        logger.error('a spoken turn could not be saved', { error })
      }
    })

    const fail = (error: SvcError) => {
      if (failed) return
      failed = true
      send(client, JSON.stringify({ type: 'error', event_id: null, error: error.toBody().error }))
      close(client, 4000 + Math.min(error.status, 999), error.code)
      upstream.terminate()
    }
    const stopped = () => {
      const reason = String(grant.signal.reason ?? 'stop')
      close(client, reason === 'shutdown' ? 1001 : 1000, reason)
      close(upstream, 1000, reason)
    }
    grant.signal.addEventListener('abort', stopped, { once: true })

    upstream.on('open', () => {
      for (const event of grant.context) upstream.send(JSON.stringify(event))
      for (const message of queue) upstream.send(message.data, { binary: message.binary })
      queue.length = 0
    })
    upstream.on('message', (data, binary) => {
      if (binary) return send(client, data, true)
      const text = data.toString()
      recorder.observe(text)
      send(client, text)
    })
    upstream.on('unexpected-response', (_request, response) => {
      void readAtMost(response, MAX_ERROR_BYTES).then(async (body) => {
        const res = new Response(new Uint8Array(body), { status: response.statusCode ?? 502 })
        fail(await apiFailure(res, Boolean(options.apiToken)))
      })
    })
    upstream.on('error', (error) => {
      fail(
        new SvcError(
          'upstream.unavailable',
          `cannot reach svc’s realtime API at ${target}: ${error.message}`,
        ),
      )
    })
    upstream.on('close', (code, reason) => {
      // A code that may not be sent on (1005 none, 1006 gone) becomes 1011: svc ended it.
      close(client, code, reason.toString())
    })

    client.on('message', (data, binary) => {
      if (upstream.readyState === upstream.OPEN) return upstream.send(data, { binary })
      if (upstream.readyState !== upstream.CONNECTING) return
      queued += byteLength(data)
      if (queued > MAX_QUEUED_BYTES) return close(client, 1009, 'too much sent before svc answered')
      queue.push({ data, binary })
    })
    client.on('close', () => {
      grant.signal.removeEventListener('abort', stopped)
      if (upstream.readyState === upstream.CONNECTING) upstream.terminate()
      else close(upstream, 1000, 'the page closed voice mode')
      recorder.finish()
      grant.end()
    })
    client.on('error', (error) => logger.debug('voice socket error', { error }))
  }

  /** The `upgrade` listener (serveHttp's `onUpgrade`). Never throws: whatever goes wrong closes the socket. */
  return function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, stop: UpgradeStop): void {
    socket.on('error', () => socket.destroy())
    void (async () => {
      let grant: VoiceGrant | undefined
      const env: Record<string, unknown> = {
        incoming: req,
        [VOICE_UPGRADE]: { accept: (given) => (grant = given) } satisfies VoiceUpgrade,
      }
      const res = await options.app.fetch(toRequest(req), env)
      if (!grant) return refuse(socket, res)
      const accepted = grant
      await res.body?.cancel()
      ws ??= await import('ws')
      sockets ??= new ws.WebSocketServer({
        noServer: true,
        maxPayload: MAX_MESSAGE_BYTES,
        perMessageDeflate: false,
      })
      // However it ends (a bad handshake that handleUpgrade answers 400 itself, the page gone), the
      // conversation is released with the socket.
      if (socket.destroyed) return accepted.end()
      socket.once('close', () => accepted.end())
      sockets.handleUpgrade(req, socket, head, (client) => {
        stop.onStop(() => close(client, 1001, 'shutdown'))
        relay(client, accepted)
      })
    })().catch((error: unknown) => {
      logger.warn('voice upgrade failed', { error })
      socket.destroy()
    })
  }
}

/** The upgrade request as a fetch `Request` for the app (headers as sent, no body). */
function toRequest(req: IncomingMessage): Request {
  const headers = new Headers()
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method ?? 'GET',
    headers,
  })
}

/** Writes the app's refusal (status, headers, JSON error body) on the raw socket and closes it. */
async function refuse(socket: Duplex, res: Response): Promise<void> {
  const body = Buffer.from(await res.arrayBuffer())
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ''}`]
  res.headers.forEach((value, name) => {
    if (!['content-length', 'connection', 'transfer-encoding'].includes(name)) lines.push(`${name}: ${value}`)
  })
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '')
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]))
}

function send(socket: WebSocket, data: RawData | string, binary = false): void {
  if (socket.readyState === socket.OPEN) socket.send(data, { binary })
}

/** Close codes a peer may send (RFC 6455 7.4; `ws` throws on others, e.g. 1005, 1006, 1015). */
const SENDABLE = new Set([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014])

function close(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSED || socket.readyState === socket.CLOSING) return
  if (!SENDABLE.has(code) && !(code >= 3000 && code <= 4999)) code = 1011
  if (socket.readyState === socket.CONNECTING) {
    socket.terminate()
    return
  }
  // A close reason is at most 123 bytes (a character cut in two is dropped).
  socket.close(
    code,
    Buffer.from(reason)
      .subarray(0, 123)
      .toString()
      .replace(/\uFFFD+$/, ''),
  )
}

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0)
  return data instanceof ArrayBuffer ? data.byteLength : data.length
}

function readAtMost(stream: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    stream.on('data', (chunk: Buffer) => {
      if (size < limit) chunks.push(chunk)
      size += chunk.length
      if (size >= limit) stream.destroy()
    })
    stream.on('end', () => resolve(Buffer.concat(chunks)))
    stream.on('close', () => resolve(Buffer.concat(chunks)))
    stream.on('error', () => resolve(Buffer.concat(chunks)))
  })
}
