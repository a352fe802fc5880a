/**
 * The activity log (docs/api.md#activity), end to end: svc in-process with auth on, `primary` running
 * a real llama-server on a tiny GGUF. A streamed request is listed in flight and then with its
 * figures, live over `/api/events?activity=1`; body capture is off unless an admin turns it on, turns
 * itself off after its minutes, and never keeps a credential; non-admins see only their own requests
 * and cannot capture; filters and the ring's bound hold.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { readSse } from '@svc/core'
import { writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { ACTIVITY_KEPT } from '../src/activity/activity-log'
import type { ActivityAnswer, ActivityEntry, CapturedExchange } from '../src/activity/activity-types'
import { mintTokens, useAuthServer } from './auth-harness'
import { llamaServerAvailable } from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('the activity log', () => {
  let gguf = ''
  const server = useAuthServer({}, async ({ configDir, stateDir }) => {
    await writeSvcConfig(configDir, {
      slots: {
        primary:
          'backend = "cpu"\nruntime = "process"\nrestart = "no"\nargs = ["-c", "2048", "-np", "1", "--threads", "1"]\n',
      },
    })
    await mkdir(stateDir, { recursive: true })
    // Big enough that a long answer takes a second or more on one thread (it is seen in flight).
    const made = await writeTinyGguf(join(stateDir, 'tiny-chat.gguf'), {
      role: 'chat',
      nEmbd: 256,
      nLayer: 4,
      nFf: 1024,
      contextLength: 2048,
      tensorType: 'f16',
    })
    gguf = made.path
  })
  const tokens = { admin: '', alice: '', bob: '' }
  const ids = { alice: '', bob: '' }

  const request = async (token: string, method: string, path: string, body?: unknown, headers = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: res.status, text, json: json as Record<string, unknown> }
  }
  const activity = async (token: string, query = '') =>
    (await request(token, 'GET', `/api/activity${query}`)).json as unknown as ActivityAnswer
  const chat = (extra: Record<string, unknown> = {}) => ({
    model: 'primary',
    messages: [{ role: 'user', content: 'Hi' }],
    max_tokens: 2,
    ...extra,
  })

  beforeAll(async () => {
    const [admin, alice, bob] = await mintTokens(server.configDir, [
      { label: 'admin', scope: 'admin' },
      { label: 'alice', scope: 'all' },
      { label: 'bob', scope: 'all' },
    ])
    tokens.admin = admin!.token
    tokens.alice = alice!.token
    tokens.bob = bob!.token
    ids.alice = alice!.id
    ids.bob = bob!.id
    const load = await request(tokens.admin, 'POST', '/api/slots/primary/load?wait=true', { model: gguf })
    expect(load.status, load.text).toBe(200)
  }, 120_000)

  /** Reads `/api/events?activity=1` as `token` into `events` until aborted. */
  const watch = async (token: string, signal: AbortSignal) => {
    const events: { event: string; data: Record<string, unknown> }[] = []
    const res = await fetch(`${server.url}/api/events?activity=1`, {
      headers: { authorization: `Bearer ${token}` },
      signal,
    })
    let snapshot!: () => void
    const opened = new Promise<void>((r) => {
      snapshot = r
    })
    const done = (async () => {
      try {
        for await (const m of readSse(res.body as ReadableStream<Uint8Array>)) {
          events.push({ event: m.event, data: JSON.parse(m.data) })
          if (m.event === 'activity.snapshot') snapshot()
        }
      } catch {
        // aborted
      }
    })()
    await opened
    return { events, done }
  }

  it('lists a streamed request in flight, then with its figures, live on the event stream', async () => {
    const stop = new AbortController()
    const adminFeed = await watch(tokens.admin, stop.signal)
    const bobFeed = await watch(tokens.bob, stop.signal)
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.alice}`,
        'content-type': 'application/json',
        'x-request-id': 'alice-stream-1',
      },
      body: JSON.stringify(chat({ stream: true, max_tokens: 600, ignore_eos: true })),
    })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    await reader.read() // the first tokens are here: the request is generating

    const during = await activity(tokens.admin)
    const live = during.inflight.find((e) => e.id === 'alice-stream-1')
    expect(live).toMatchObject({
      live: true,
      surface: 'chat',
      slot: 'primary',
      status: null,
      caller: { token_id: ids.alice, label: 'alice', identity: null },
    })
    expect(live?.model).toBeTruthy()
    expect(during.recent.find((e) => e.id === 'alice-stream-1')).toBeUndefined()

    while (!(await reader.read()).done) {}
    const after = await activity(tokens.admin)
    expect(after.inflight.find((e) => e.id === 'alice-stream-1')).toBeUndefined()
    const done = after.recent.find((e) => e.id === 'alice-stream-1')!
    expect(done).toMatchObject({ live: false, status: 200, outcome: 'ok', tokens_out: 600, captured: false })
    expect(done.ttft_ms).toBeGreaterThan(0)
    expect(done.tokens_in).toBeGreaterThan(0)
    expect(done.tokens_per_s).toBeGreaterThan(0)
    expect(done.queue_ms).toBeGreaterThanOrEqual(0)
    expect(done.load_ms).toBe(0) // the slot was ready before it came
    expect(done.duration_ms).toBeGreaterThanOrEqual(done.ttft_ms!)

    // start, then (for a request in flight longer than a second) updates of its figures, then end.
    const kinds = () =>
      adminFeed.events
        .filter((e) => e.data.id === 'alice-stream-1')
        .map((e) => e.event.replace('activity.', ''))
    await expect.poll(() => kinds().at(-1)).toBe('end')
    expect(kinds().join(' ')).toMatch(/^start( update)* end$/)
    const ended = adminFeed.events.find((e) => e.event === 'activity.end' && e.data.id === 'alice-stream-1')
    expect(ended?.data).toMatchObject({ status: 200, tokens_out: 600 })
    stop.abort()
    await Promise.all([adminFeed.done, bobFeed.done])
    // Bob's stream carried none of Alice's requests.
    expect(bobFeed.events.some((e) => JSON.stringify(e.data).includes('alice-stream-1'))).toBe(false)
  }, 60_000)

  it('keeps no bodies while capture is off (the default)', async () => {
    expect((await activity(tokens.admin)).capture).toMatchObject({ on: false, until: null, kept: 0 })
    const r = await request(tokens.alice, 'POST', '/v1/chat/completions', chat(), { 'x-request-id': 'off-1' })
    expect(r.status).toBe(200)
    const found = (await request(tokens.admin, 'GET', '/api/activity/off-1')).json as {
      entry: ActivityEntry
      capture: CapturedExchange | null
    }
    expect(found.entry).toMatchObject({ id: 'off-1', status: 200, captured: false })
    expect(found.capture).toBeNull()
  })

  it('captures while on, with Authorization, key headers and key fields redacted', async () => {
    const on = await request(tokens.admin, 'POST', '/api/activity/capture', { on: true, minutes: 5 })
    expect(on.status).toBe(200)
    expect(on.json).toMatchObject({ on: true, kept: 0 })
    expect(on.json.until as number).toBeGreaterThan(Date.now() + 4 * 60_000)
    const secret = 'sk-proj-0123456789abcdefghij'
    const body = chat({ api_key: secret, user: 'alice', metadata: { password: 'hunter2', note: 'kept' } })
    const r = await request(tokens.alice, 'POST', '/v1/chat/completions', body, {
      'x-request-id': 'cap-1',
      'x-api-key': 'another-key-value',
    })
    expect(r.status).toBe(200)
    const found = (await request(tokens.admin, 'GET', '/api/activity/cap-1')).json as {
      entry: ActivityEntry
      capture: CapturedExchange
    }
    expect(found.entry.captured).toBe(true)
    const kept = found.capture
    expect(kept.request.headers.authorization).toBe('[redacted]')
    expect(kept.request.headers['x-api-key']).toBe('[redacted]')
    const sent = JSON.parse(kept.request.body!)
    expect(sent).toMatchObject({
      api_key: '[redacted]',
      user: 'alice',
      metadata: { password: '[redacted]', note: 'kept' },
    })
    expect(kept.response.status).toBe(200)
    expect(JSON.parse(kept.response.body!).choices).toHaveLength(1)
    const all = JSON.stringify(found)
    for (const leaked of [secret, 'hunter2', 'another-key-value', tokens.alice.split('.')[1]!])
      expect(all).not.toContain(leaked)
    // Alice may look at her own request, but not at its bodies.
    const hers = (await request(tokens.alice, 'GET', '/api/activity/cap-1')).json
    expect(hers).toMatchObject({ entry: { id: 'cap-1' }, capture: null })
    await request(tokens.admin, 'POST', '/api/activity/capture', { on: false })
  })

  it('turns capture off by itself after its minutes', async () => {
    const on = await request(tokens.admin, 'POST', '/api/activity/capture', { on: true, minutes: 0.02 })
    expect(on.json).toMatchObject({ on: true })
    await new Promise((r) => setTimeout(r, 1_500))
    expect((await activity(tokens.admin)).capture).toMatchObject({ on: false, until: null })
    await request(tokens.alice, 'POST', '/v1/chat/completions', chat(), { 'x-request-id': 'late-1' })
    const late = (await activity(tokens.admin)).recent.find((e) => e.id === 'late-1')
    expect(late).toMatchObject({ status: 200, captured: false })
  })

  it('refuses capture to non-admins and shows them only their own requests', async () => {
    const refused = await request(tokens.alice, 'POST', '/api/activity/capture', { on: true, minutes: 5 })
    expect(refused.status).toBe(403)
    expect((await activity(tokens.admin)).capture.on).toBe(false)
    await request(tokens.bob, 'POST', '/v1/chat/completions', chat(), { 'x-request-id': 'bob-1' })
    const bobs = await activity(tokens.bob)
    expect(bobs.recent.map((e) => e.id)).toEqual(['bob-1'])
    expect(bobs.recent[0]?.caller).toMatchObject({ token_id: ids.bob, label: 'bob' })
    expect((await request(tokens.bob, 'GET', '/api/activity/cap-1')).status).toBe(404)
    const everyone = await activity(tokens.admin)
    expect(everyone.recent.some((e) => e.id === 'cap-1')).toBe(true)
    expect(everyone.recent.some((e) => e.id === 'bob-1')).toBe(true)
  })

  it('filters by model and caller, and limits', async () => {
    const byAlice = await activity(tokens.admin, '?caller=alice')
    expect(byAlice.recent.length).toBeGreaterThanOrEqual(3)
    expect(byAlice.recent.every((e) => e.caller?.label === 'alice')).toBe(true)
    const byId = await activity(tokens.admin, `?caller=${ids.bob}`)
    expect(byId.recent.map((e) => e.id)).toEqual(['bob-1'])
    const byModel = await activity(tokens.admin, '?model=primary')
    expect(byModel.recent.length).toBe(byAlice.recent.length + 1)
    expect((await activity(tokens.admin, '?model=embed')).recent).toEqual([])
    expect((await activity(tokens.admin, '?limit=1')).recent.map((e) => e.id)).toEqual(['bob-1'])
    const bad = await request(tokens.admin, 'GET', '/api/activity?limit=lots')
    expect(bad.status).toBe(400)
  })

  it(`keeps the last ${ACTIVITY_KEPT} requests only`, async () => {
    const refused = chat({ model: 'no-such-model' })
    for (let i = 0; i < ACTIVITY_KEPT + 10; i++) {
      const r = await request(tokens.bob, 'POST', '/v1/chat/completions', refused)
      expect(r.status).toBe(404)
    }
    const kept = await activity(tokens.admin, '?limit=9999')
    expect(kept.recent).toHaveLength(ACTIVITY_KEPT)
    expect(kept.recent.every((e) => e.status === 404)).toBe(true)
    expect(kept.recent.some((e) => e.id === 'bob-1')).toBe(false)
  }, 120_000)
})
