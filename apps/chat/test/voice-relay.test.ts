/**
 * The voice mode's WebSocket (`api/realtime`) at the chat server, without a browser: it is relayed to
 * svc's real `/v1/realtime` (auth on) with the chat app's token, only for a person the proxy signed
 * in, only from the app's own pages, only into that person's conversation, one at a time; a svc that
 * cannot be reached is an `error` event the page can show, and the conversation's Stop ends it.
 */
import type { Socket } from 'node:net'
import { type ApiProcess, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { type ChatProcess, startChatProcess } from './chat-process'
import { createChatToken } from './chat-token'

const SECRET = 'proxy-secret-for-voice-tests'
const BEHIND_PROXY = { SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email', SVC_PROXY_SECRET: SECRET }
const as = (email: string) => ({ 'x-forwarded-email': email, 'x-svc-proxy-secret': SECRET })
const ALICE = as('alice@example.com')

type Event = { type: string } & Record<string, unknown>

interface Opened {
  socket: WebSocket
  events: Event[]
  /** Resolves with the first event of `type` (waits for it). */
  next(type: string): Promise<Event>
  closed: Promise<{ code: number; reason: string }>
}

/** Opens the voice socket; a refused upgrade rejects with `{status, body}`. */
function open(url: string, headers: Record<string, string>): Promise<Opened> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers })
  const events: Event[] = []
  const waiters: (() => void)[] = []
  socket.on('message', (data) => {
    events.push(JSON.parse(data.toString()) as Event)
    for (const w of waiters.splice(0)) w()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  const next = (type: string) =>
    new Promise<Event>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type}: ${JSON.stringify(events)}`)), 15_000)
      const look = () => {
        const found = events.find((e) => e.type === type)
        if (found) {
          clearTimeout(timer)
          resolve(found)
        } else waiters.push(look)
      }
      look()
    })
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, events, next, closed }))
    socket.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk))
      res.on('end', () => reject({ status: res.statusCode, body: JSON.parse(body || '{}') }))
    })
    socket.once('error', reject)
  })
}

async function newConversation(chat: ChatProcess, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${chat.url}/api/conversations`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ model: 'primary', system: 'Answer in one sentence.' }),
  })
  expect(res.status).toBe(201)
  return ((await res.json()) as { conversation: { id: string } }).conversation.id
}

const voiceUrl = (chat: ChatProcess, id: string) =>
  `${chat.url}/api/realtime?conversation=${id}&model=primary`

async function running(chat: ChatProcess, id: string): Promise<boolean | undefined> {
  const res = await fetch(`${chat.url}/api/conversations`, { headers: ALICE })
  const body = (await res.json()) as { conversations: { id: string; running: boolean }[] }
  return body.conversations.find((c) => c.id === id)?.running
}

describe('the voice socket at the chat server', () => {
  let api: ApiProcess
  let chat: ChatProcess
  let token: string

  beforeAll(async () => {
    api = await startApi({ env: { SVC_AUTH_ENABLED: '1' } })
    token = await createChatToken(api.configDir)
    chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token, ...BEHIND_PROXY },
    })
  }, 60_000)
  afterAll(async () => {
    await chat?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
  })

  it('relays a signed-in person to svc’s realtime API with the chat app’s token, holding the conversation while open', async () => {
    const id = await newConversation(chat, ALICE)
    const voice = await open(voiceUrl(chat, id), { ...ALICE, origin: chat.url })
    const created = await voice.next('session.created')
    expect(created.session).toMatchObject({ type: 'realtime', model: 'primary' })
    // svc was told the conversation first: its system prompt is the session's instructions.
    voice.socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime' } }))
    const updated = await voice.next('session.updated')
    expect(updated.session).toMatchObject({ instructions: 'Answer in one sentence.' })
    expect(await running(chat, id)).toBe(true)
    expect(JSON.stringify(voice.events)).not.toContain(token)

    // One voice session (or answer) per conversation.
    await expect(open(voiceUrl(chat, id), { ...ALICE, origin: chat.url })).rejects.toMatchObject({
      status: 409,
      body: { error: { code: 'conversation.busy' } },
    })

    // What a page whose socket was refused reads to learn why: the same refusal, asked plainly.
    const plain = await fetch(voiceUrl(chat, id), { headers: ALICE })
    expect([plain.status, ((await plain.json()) as { error: { code: string } }).error.code]).toEqual([
      409,
      'conversation.busy',
    ])

    voice.socket.close(1000)
    await voice.closed
    await expect.poll(() => running(chat, id)).toBe(false)
  })

  it('ends the session when the conversation’s Stop is pressed', async () => {
    const id = await newConversation(chat, ALICE)
    const voice = await open(voiceUrl(chat, id), ALICE)
    await voice.next('session.created')
    const res = await fetch(`${chat.url}/api/conversations/${id}/stop`, {
      method: 'POST',
      headers: { ...ALICE, 'sec-fetch-site': 'same-origin' },
    })
    expect(await res.json()).toEqual({ stopped: true })
    expect((await voice.closed).code).toBe(1000)
    await expect.poll(() => running(chat, id)).toBe(false)
  })

  it('a stopping chat server tells the page 1001 and cuts it when its grace period ends, even if the page never answers', async () => {
    await using stopping = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token, ...BEHIND_PROXY },
    })
    const id = await newConversation(stopping, ALICE)
    const voice = await open(voiceUrl(stopping, id), ALICE)
    await voice.next('session.created')
    // A page gone quiet (a phone asleep): it reads nothing, so it never answers the close frame.
    const raw = (voice.socket as unknown as { _socket: Socket })._socket
    raw.pause()
    const started = Date.now()
    expect(await stopping.stop()).toBe(0)
    expect(Date.now() - started).toBeLessThan(5_000 + 3_000) // the chat server's grace period is 5 s
    raw.resume()
    expect(await voice.closed).toMatchObject({ code: 1001 })
  }, 60_000)

  it('refuses before the upgrade: nobody signed in, another site’s page, someone else’s conversation, a plain GET', async () => {
    const id = await newConversation(chat, ALICE)
    await expect(open(voiceUrl(chat, id), {})).rejects.toMatchObject({
      status: 401,
      body: { error: { code: 'auth.required' } },
    })
    // A WebSocket carries the browser's credentials from any page: another site's is refused.
    const foreignPages: Record<string, string>[] = [
      { origin: 'http://evil.test' },
      { 'sec-fetch-site': 'cross-site' },
    ]
    for (const foreign of foreignPages) {
      await expect(open(voiceUrl(chat, id), { ...ALICE, ...foreign })).rejects.toMatchObject({
        status: 403,
        body: { error: { code: 'auth.forbidden' } },
      })
    }
    await expect(open(voiceUrl(chat, id), as('bob@example.com'))).rejects.toMatchObject({
      status: 404,
      body: { error: { code: 'conversation.not_found' } },
    })
    await expect(open(`${chat.url}/api/realtime?conversation=${id}`, ALICE)).rejects.toMatchObject({
      status: 400,
      body: { error: { code: 'request.invalid', param: 'model' } },
    })
    const plain = await fetch(voiceUrl(chat, id), { headers: ALICE })
    expect(plain.status).toBe(400)
    expect(((await plain.json()) as { error: { message: string } }).error.message).toContain('WebSocket')
    expect(await running(chat, id)).toBe(false)
  })

  it('tells the page when svc cannot be reached, with svc’s error code, and frees the conversation', async () => {
    await using lost = await startChatProcess({
      env: { SVC_CHAT_API_URL: 'http://127.0.0.1:9', SVC_CHAT_API_TOKEN: token, ...BEHIND_PROXY },
    })
    const id = await newConversation(lost, ALICE)
    const voice = await open(voiceUrl(lost, id), ALICE)
    const error = await voice.next('error')
    expect(error.error).toMatchObject({ code: 'upstream.unavailable' })
    expect(await voice.closed).toEqual({ code: 4502, reason: 'upstream.unavailable' })
    const stillRunning = async () => {
      const res = await fetch(`${lost.url}/api/conversations`, { headers: ALICE })
      const list = (await res.json()) as { conversations: { id: string; running: boolean }[] }
      return list.conversations.find((c) => c.id === id)?.running
    }
    await expect.poll(stillRunning).toBe(false)
  })
})
