import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DispatchRecord, StartedRequest } from '@svc/dispatcher'
import { describe, expect, it } from 'vitest'
import { createActivityLog } from './activity-log'
import type { ActivityEntry } from './activity-types'
import { activityViewerOf } from './activity-viewer'

const everyone = activityViewerOf(undefined)

function request(id: string, headers: Record<string, string> = {}) {
  const record: DispatchRecord = {
    route: '/v1/chat/completions',
    slot: 'primary',
    status: 0,
    outcome: 'error',
    seconds: 0,
  }
  const req = { headers } as unknown as IncomingMessage
  const written: string[] = []
  const res = {
    writeHead: () => res,
    write: (chunk: string) => written.push(chunk) > 0,
    end: (chunk?: string) => {
      if (chunk) written.push(chunk)
      return res
    },
    getHeaders: () => ({ 'content-type': 'application/json' }),
  }
  const started: StartedRequest = {
    req,
    res: res as unknown as ServerResponse,
    requestId: id,
    record,
    started: performance.now(),
  }
  return { record, req, res, started, written }
}

function finish(r: ReturnType<typeof request>, extra: Partial<DispatchRecord> = {}) {
  Object.assign(
    r.record,
    { status: 200, outcome: 'ok', seconds: 0.5, overheadSeconds: 0.1, ttfbSeconds: 0.05 },
    extra,
  )
}

describe('the activity log', () => {
  it('lists a request in flight, then finished with its figures', () => {
    const log = createActivityLog({
      subjectOf: () => ({ token: 't1', identity: '' }),
      labelOf: () => 'kitchen',
    })
    const r = request('a')
    log.onStart(r.started, 'primary', undefined)
    expect(log.list(everyone).inflight).toMatchObject([
      { id: 'a', live: true, model: 'primary', status: null },
    ])
    finish(r, { model: 'qwen', usage: { promptTokens: 7, completionTokens: 20, generationMs: 400 } })
    log.observe(r.record, r.req)
    const { inflight, recent } = log.list(everyone)
    expect(inflight).toEqual([])
    expect(recent).toEqual([
      expect.objectContaining({
        id: 'a',
        live: false,
        caller: { token_id: 't1', label: 'kitchen', identity: null },
        surface: 'chat',
        model: 'qwen',
        status: 200,
        queue_ms: 100,
        load_ms: 0,
        ttft_ms: 50,
        duration_ms: 500,
        tokens_in: 7,
        tokens_out: 20,
        tokens_per_s: 50,
        captured: false,
      }),
    ])
  })

  it('splits the wait into load and queue when the slot became ready meanwhile', () => {
    let ready: ((e: { slot: string; to: string; at: number }) => void) | undefined
    const bus = {
      on: (_: string, f: typeof ready) => {
        ready = f
        return () => undefined
      },
    }
    const log = createActivityLog({ bus: bus as never })
    const r = request('w')
    log.onStart(r.started, undefined, undefined)
    const arrived = performance.timeOrigin + r.started.started
    ready?.({ slot: 'primary', to: 'ready', at: arrived + 3000 })
    finish(r, { seconds: 4, overheadSeconds: 3.2 })
    log.observe(r.record, r.req)
    expect(log.list(everyone).recent[0]).toMatchObject({ load_ms: 3000, queue_ms: 200 })
  })

  it('keeps only the last `size` finished requests', () => {
    const log = createActivityLog({ size: 3 })
    for (const id of ['1', '2', '3', '4', '5']) {
      const r = request(id)
      log.onStart(r.started, undefined, undefined)
      finish(r)
      log.observe(r.record, r.req)
    }
    expect(log.list(everyone).recent.map((e) => e.id)).toEqual(['5', '4', '3'])
    expect(log.list(everyone, { limit: 1 }).recent.map((e) => e.id)).toEqual(['5'])
  })

  it('makes events only while someone listens', () => {
    const log = createActivityLog()
    const seen: [string, ActivityEntry][] = []
    const quiet = request('q')
    log.onStart(quiet.started, undefined, undefined)
    const off = log.subscribe((type, entry) => seen.push([type, entry]))
    finish(quiet)
    log.observe(quiet.record, quiet.req)
    off()
    const after = request('after')
    log.onStart(after.started, undefined, undefined)
    expect(seen.map(([type, e]) => `${type} ${e.id}`)).toEqual(['activity.end q'])
  })

  it('re-sends a request in flight when what it shows changed, while someone listens', async () => {
    const log = createActivityLog({ updateMs: 5 })
    const seen: string[] = []
    log.subscribe((type, e) => seen.push(`${type} ${e.model}`))
    const r = request('u')
    log.onStart(r.started, 'primary', undefined)
    r.record.model = 'qwen' // the lease is held
    r.record.overheadSeconds = 0.01
    await new Promise((resolve) => setTimeout(resolve, 40))
    finish(r, { model: 'qwen' })
    log.observe(r.record, r.req)
    expect(seen[0]).toBe('activity.start primary')
    expect(seen.filter((s) => s === 'activity.update qwen').length).toBeGreaterThanOrEqual(1)
    expect(seen.at(-1)).toBe('activity.end qwen')
    expect(new Set(seen.filter((s) => s.startsWith('activity.update'))).size).toBe(1)
    log.stop()
  })

  it('leaves the response alone while capture is off, and keeps redacted bodies while on', () => {
    let now = 1_000_000
    const log = createActivityLog({ now: () => now, capture: { now: () => now } })
    const off = request('off', { authorization: 'Bearer svc_abc' })
    const write = off.res.write
    log.onStart(off.started, undefined, Buffer.from('{"model":"m"}'))
    finish(off)
    log.observe(off.record, off.req)
    expect(off.res.write).toBe(write)
    expect(log.capture.get('off')).toBeUndefined()

    log.capture.set(true, 1)
    const on = request('on', { authorization: 'Bearer svc_abc', 'x-api-key': 'k' })
    log.onStart(on.started, undefined, Buffer.from('{"model":"m","api_key":"sk-123","keep":"yes"}'))
    on.res.write('data: {"token":"x","choices":[]}\n\n')
    on.res.end()
    finish(on)
    log.observe(on.record, on.req)
    expect(on.written).toEqual(['data: {"token":"x","choices":[]}\n\n'])
    const kept = log.capture.get('on')!
    expect(kept.request.headers).toEqual({ authorization: '[redacted]', 'x-api-key': '[redacted]' })
    expect(JSON.parse(kept.request.body!)).toEqual({ model: 'm', api_key: '[redacted]', keep: 'yes' })
    expect(kept.response.body).toBe('data: {"token":"[redacted]","choices":[]}\n\n')
    expect(log.list(everyone).recent[0]).toMatchObject({ id: 'on', captured: true })

    now += 61_000 // its minute is over
    expect(log.capture.state()).toMatchObject({ on: false, until: null, kept: 1 })
    const late = request('late')
    const original = late.res.write
    log.onStart(late.started, undefined, Buffer.from('{}'))
    expect(late.res.write).toBe(original)
    finish(late)
    log.observe(late.record, late.req)
    expect(log.capture.has('late')).toBe(false)
  })

  it('shows a token its own requests only', () => {
    const log = createActivityLog({ subjectOf: (req) => ({ token: String(req.headers.who), identity: '' }) })
    for (const who of ['alice', 'bob']) {
      const r = request(who, { who })
      log.onStart(r.started, undefined, undefined)
      finish(r)
      log.observe(r.record, r.req)
    }
    const bob = activityViewerOf({
      kind: 'token',
      scope: 'all',
      tokenId: 'bob',
      label: 'bob',
      models: undefined,
    })
    expect(log.list(bob).recent.map((e) => e.id)).toEqual(['bob'])
    expect(log.find(bob, 'alice')).toBeUndefined()
    expect(log.list(everyone, { caller: 'alice' }).recent.map((e) => e.id)).toEqual(['alice'])
  })
})
