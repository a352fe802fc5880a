import { createEventBus, type SvcEvents } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { createSlotActivity } from './slot-activity'

function setup() {
  let t = 1_000_000
  const bus = createEventBus<SvcEvents>()
  const activity = createSlotActivity({ bus, now: () => t, intervalMs: 60_000 })
  return { bus, activity, advance: (ms: number) => (t += ms), at: () => t }
}

const ok = { route: '/v1/chat/completions', status: 200, outcome: 'ok' as const }

describe('slot activity', () => {
  it('counts requests of the last minute with their median latency and generation speed', () => {
    const { activity, advance } = setup()
    activity.record({
      ...ok,
      slot: 'primary',
      seconds: 1,
      ttfbSeconds: 0.5,
      usage: { promptTokens: 3, completionTokens: 10 },
    })
    activity.record({
      ...ok,
      slot: 'primary',
      seconds: 3,
      ttfbSeconds: 1,
      usage: { promptTokens: 3, completionTokens: 30 },
    })
    activity.record({ ...ok, slot: 'primary', seconds: 2, ttfbSeconds: 0.5 })
    expect(activity.current().primary).toEqual({
      requestsPerMin: 3,
      p50Ms: 2000,
      tokensPerS: 10, // 40 tokens over the 1 s + 3 s of the requests that reported usage
      readyAt: null,
      series: {
        bucket_ms: 5000,
        requests: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3],
        tokens_per_second: [null, null, null, null, null, null, null, null, null, null, null, 10],
      },
    })
    advance(61_000)
    expect(activity.current().primary).toMatchObject({ requestsPerMin: 0, p50Ms: null, tokensPerS: null })
    activity.stop()
  })

  it('takes the engine’s own generation time when the upstream reports it (llama.cpp timings)', () => {
    const { activity } = setup()
    activity.record({
      ...ok,
      slot: 'primary',
      seconds: 2, // queueing and the prompt are in here too
      ttfbSeconds: 1.5,
      usage: { promptTokens: 20, completionTokens: 50, generationMs: 250 },
    })
    expect(activity.current().primary?.tokensPerS).toBe(200)
    activity.stop()
  })

  it('has no tokens/s (null, not 0) while no answer reported a token count', () => {
    const { activity } = setup()
    // a stream cut before its end, and an answer that generated nothing
    activity.record({ ...ok, slot: 'primary', outcome: 'client-gone', seconds: 3, ttfbSeconds: 0.2 })
    activity.record({
      ...ok,
      slot: 'primary',
      seconds: 1,
      ttfbSeconds: 1,
      usage: { promptTokens: 5, completionTokens: 0 },
    })
    expect(activity.current().primary).toMatchObject({ requestsPerMin: 2, tokensPerS: null })
    activity.stop()
  })

  it('ignores hosted upstreams and requests refused before reaching an upstream', () => {
    const { activity } = setup()
    activity.record({ ...ok, slot: 'upstream:openai', seconds: 1, ttfbSeconds: 0.1 })
    activity.record({ route: '/v1/embeddings', slot: 'embed', status: 409, outcome: 'error', seconds: 0.001 })
    activity.record({ route: '/v1/embeddings', slot: '-', status: 404, outcome: 'error', seconds: 0.001 })
    expect(activity.current()).toEqual({})
    activity.stop()
  })

  it('knows since when an upstream is ready, until it goes offline', () => {
    const { bus, activity, at } = setup()
    bus.emit('slot.transition', { slot: 'embed', from: 'warming', to: 'ready', model: 'm', at: at() })
    bus.emit('slot.transition', { slot: 'embed', from: 'ready', to: 'serving', model: 'm', at: at() + 5 })
    bus.emit('slot.transition', { slot: 'embed', from: 'serving', to: 'idle', model: 'm', at: at() + 9 })
    expect(activity.current().embed?.readyAt).toBe(at())
    bus.emit('slot.transition', { slot: 'embed', from: 'idle', to: 'unloading', model: 'm', at: at() + 10 })
    bus.emit('slot.transition', {
      slot: 'embed',
      from: 'unloading',
      to: 'offline',
      model: 'm',
      at: at() + 11,
    })
    expect(activity.current().embed).toBeUndefined()
    activity.stop()
  })

  it('publishes slot.metrics only when a figure changed', async () => {
    const bus = createEventBus<SvcEvents>()
    const seen: unknown[] = []
    bus.on('slot.metrics', (e) => seen.push(e.slots))
    // A fixed clock: the series' buckets do not move while the timer runs.
    const activity = createSlotActivity({ bus, intervalMs: 20, now: () => 1_002_000 })
    activity.record({ ...ok, slot: 'primary', seconds: 0.2, ttfbSeconds: 0.1 })
    await new Promise((r) => setTimeout(r, 120))
    activity.stop()
    expect(seen).toEqual([
      {
        primary: expect.objectContaining({ requestsPerMin: 1, p50Ms: 200, tokensPerS: null, readyAt: null }),
      },
    ])
  })

  it('keeps the last minute as twelve 5 s buckets on the clock’s 5 s marks, oldest first', () => {
    const { activity, advance } = setup() // now: 1 000 000, a 5 s mark
    const gen = (completionTokens: number, generationMs: number) => ({
      ...ok,
      slot: 'primary',
      seconds: 1,
      ttfbSeconds: 0.1,
      usage: { promptTokens: 1, completionTokens, generationMs },
    })
    activity.record(gen(10, 1000)) // bucket of 1 000 000
    advance(4_999)
    activity.record(gen(30, 1000)) // same bucket: 40 tokens in 2 s
    advance(1) // 1 005 000: a new bucket
    activity.record({ ...ok, slot: 'primary', seconds: 1, ttfbSeconds: 0.1 }) // no tokens
    advance(12_000) // 1 017 000: two more marks passed
    const series = activity.current().primary?.series
    expect(series?.bucket_ms).toBe(5000)
    expect(series?.requests).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0])
    expect(series?.tokens_per_second).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      20,
      null,
      null,
      null,
    ])
    advance(50_000) // the first requests are more than a minute old
    expect(activity.current().primary?.series?.requests).toEqual(new Array(12).fill(0))
    activity.stop()
  })
})
