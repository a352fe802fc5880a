/**
 * `GET /v1/realtime`'s doors and limits on the real API process (auth on, no engine needed): refusals
 * before the upgrade in svc's HTTP error body, the browser's way of sending the token (the
 * `openai-insecure-api-key.` subprotocol), sessions per token, the input buffer's size, the session's
 * length, and `error` events with svc's codes for what a client gets wrong.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Scope } from '@svc/auth'
import { type ApiProcess, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { mintTokens } from './auth-harness'
import { type Event, EventLog, silencePcm } from './realtime-harness'

interface Refusal {
  status: number
  body: { error: { code: string; message: string; type: string; param: string | null } }
}

describe('the Realtime API: auth, refusals and limits', () => {
  let dir: string
  let api: ApiProcess
  const tokens: Partial<Record<Scope, string>> = {}

  const wsUrl = (base: string, path = '/v1/realtime?model=stt') => base.replace(/^http/, 'ws') + path

  /** Opens a socket; resolves with it and its event log once session.created came, or with the refusal. */
  function connect(
    options: { headers?: Record<string, string>; protocols?: string[]; path?: string; base?: string } = {},
  ): Promise<{ ws: WebSocket; log: EventLog } | Refusal> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl(options.base ?? api.url, options.path), options.protocols ?? [], {
        headers: options.headers ?? {},
      })
      const log = new EventLog()
      ws.on('message', (data) => {
        log.push(JSON.parse(String(data)) as Event)
        if (log.events.length === 1) resolve({ ws, log })
      })
      ws.on('unexpected-response', (_req, res) => {
        let text = ''
        res.on('data', (c: Buffer) => {
          text += c
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      })
      ws.on('error', (error) => {
        if (!String(error.message).includes('Unexpected server response')) reject(error)
      })
    })
  }
  const opened = async (options: Parameters<typeof connect>[0]) => {
    const r = await connect(options)
    if ('status' in r) throw new Error(`refused: ${JSON.stringify(r)}`)
    return r
  }
  const bearer = (scope: Scope) => ({ headers: { authorization: `Bearer ${tokens[scope]}` } })
  const closed = (ws: WebSocket) =>
    new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    )

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-realtime-limits-'))
    const [admin, v1, readOnly, second] = await mintTokens(dir, [
      { label: 'admin', scope: 'admin' },
      { label: 'v1-only', scope: 'v1-only' },
      { label: 'read-only', scope: 'read-only' },
      { label: 'second', scope: 'v1-only' },
    ])
    tokens.admin = admin!.token
    tokens['v1-only'] = v1!.token
    tokens['read-only'] = readOnly!.token
    tokens.all = second!.token
    api = await startApi({
      configDir: dir,
      env: {
        SVC_AUTH_ENABLED: '1',
        SVC_REALTIME_MAX_SESSIONS: '1',
        SVC_REALTIME_MAX_BUFFER_SECONDS: '1',
        SVC_CORS_ORIGINS: 'https://app.example',
      },
    })
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('refuses before the upgrade with svc’s error body: no token, a bad one, a read-only one, another path', async () => {
    expect(await connect()).toMatchObject({ status: 401, body: { error: { code: 'auth.required' } } })
    expect(await connect({ headers: { authorization: 'Bearer svc_nope.nope' } })).toMatchObject({
      status: 401,
      body: { error: { code: 'auth.invalid' } },
    })
    expect(await connect(bearer('read-only'))).toMatchObject({
      status: 403,
      body: { error: { code: 'auth.forbidden' } },
    })
    expect(await connect({ ...bearer('v1-only'), path: '/v1/elsewhere' })).toMatchObject({
      status: 404,
      body: { error: { code: 'route.not_found' } },
    })
  })

  it('takes pages of the origins SVC_CORS_ORIGINS lists (and svc’s own), refuses other sites', async () => {
    const from = (origin: string) => ({ headers: { ...bearer('v1-only').headers, origin } })
    expect(await connect(from('https://evil.example'))).toMatchObject({
      status: 403,
      body: { error: { code: 'auth.forbidden' } },
    })
    for (const origin of ['https://app.example', api.url]) {
      const { ws } = await opened(from(origin))
      ws.close()
      await closed(ws)
      await new Promise((r) => setTimeout(r, 100))
    }
  })

  it('takes the token as a browser sends it (subprotocol) and answers with "realtime", never the key', async () => {
    const { ws, log } = await opened({
      protocols: ['realtime', `openai-insecure-api-key.${tokens['v1-only']}`],
    })
    expect(ws.protocol).toBe('realtime')
    expect(log.events[0]).toMatchObject({
      type: 'session.created',
      session: { type: 'realtime', model: 'stt' },
    })
    ws.close()
    await closed(ws)
  })

  it('allows SVC_REALTIME_MAX_SESSIONS per token; another token is counted apart; a closed one frees its place', async () => {
    const first = await opened(bearer('v1-only'))
    const refused = await connect(bearer('v1-only'))
    expect(refused).toMatchObject({
      status: 429,
      body: { error: { code: 'quota.exceeded', param: 'realtime_sessions' } },
    })
    const other = await opened(bearer('all'))
    first.ws.close()
    await closed(first.ws)
    const again = await opened(bearer('v1-only'))
    await Promise.all(
      [other.ws, again.ws].map((ws) => {
        ws.close()
        return closed(ws)
      }),
    )
    // The server counts a session out when its socket closes there: give it that moment.
    await new Promise((r) => setTimeout(r, 100))
  })

  it('answers mistakes with error events in svc’s codes, and keeps the session open', async () => {
    const { ws, log } = await opened(bearer('v1-only'))
    const send = (event: unknown) => ws.send(typeof event === 'string' ? event : JSON.stringify(event))
    /** Sends `event` and answers the error event it gets. */
    const errorFor = async (event: unknown) => {
      const from = log.events.length
      send(event)
      const e = await log.next('error', { from, timeoutMs: 10_000 })
      return e.error as Record<string, unknown>
    }
    expect(await errorFor('not json')).toMatchObject({
      code: 'request.invalid',
      type: 'invalid_request_error',
    })
    expect(await errorFor({ type: 'session.explode', event_id: 'e1' })).toMatchObject({
      code: 'request.invalid',
      param: 'type',
      event_id: 'e1',
    })
    expect(
      await errorFor({
        type: 'session.update',
        session: { audio: { input: { format: { type: 'audio/pcmu' } } } },
      }),
    ).toMatchObject({ code: 'request.invalid', param: 'session.audio.input.format' })
    send({
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { turn_detection: null } } },
    })
    await log.next('session.updated')
    expect(await errorFor({ type: 'response.create' })).toMatchObject({
      code: 'request.invalid',
      param: 'type',
    })
    expect(await errorFor({ type: 'input_audio_buffer.commit' })).toMatchObject({
      code: 'request.invalid',
      param: 'input_audio_buffer',
    })
    // One second of buffer (SVC_REALTIME_MAX_BUFFER_SECONDS=1): the append past it is refused.
    send({ type: 'input_audio_buffer.append', audio: silencePcm(800).toString('base64') })
    expect(
      await errorFor({ type: 'input_audio_buffer.append', audio: silencePcm(800).toString('base64') }),
    ).toMatchObject({ code: 'request.too_large', param: 'audio' })
    // What is held is committed; no stt model is loaded, so the transcription fails with svc's code.
    send({ type: 'input_audio_buffer.commit' })
    const failed = await log.next('conversation.item.input_audio_transcription.failed')
    expect(failed.error).toMatchObject({ code: 'model.not_loaded' })
    expect(ws.readyState).toBe(WebSocket.OPEN)
    ws.close()
    await closed(ws)
  })

  it('ends a session at SVC_REALTIME_MAX_SESSION_SECONDS with session.expired and close 1000', async () => {
    await using short = await startApi({
      env: { SVC_REALTIME_MAX_SESSION_SECONDS: '1' },
    })
    const { ws, log } = await opened({ base: short.url })
    const end = await closed(ws)
    expect(end.code).toBe(1000)
    expect(log.of('error').map((e) => (e.error as { code: string }).code)).toEqual(['session.expired'])
  })

  it('a stopping svc tells its sessions 1001 (going away) instead of waiting for them', async () => {
    const stopping = await startApi()
    const { ws } = await opened({ base: stopping.url })
    const end = closed(ws)
    const started = Date.now()
    await stopping[Symbol.asyncDispose]()
    expect((await end).code).toBe(1001)
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('cuts a session whose client never answers the 1001 when the drain period ends', async () => {
    const stopping = await startApi({ env: { SVC_DRAIN_SECONDS: '2' } })
    const { ws } = await opened({ base: stopping.url })
    const end = closed(ws)
    // A client gone quiet (a phone asleep): it reads nothing, so it never answers svc's close frame.
    const raw = (ws as unknown as { _socket: Socket })._socket
    raw.pause()
    const started = Date.now()
    await stopping[Symbol.asyncDispose]()
    expect(Date.now() - started).toBeLessThan(2_000 + 3_000)
    raw.resume()
    expect((await end).code).toBe(1001)
  })
})
