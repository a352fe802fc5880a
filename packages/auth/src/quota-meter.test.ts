import { describe, expect, it } from 'vitest'
import { addRateLimitHeaders, parseQuotaSpec, resetText } from './quota'
import { createQuotaMeter } from './quota-meter'

function meterAt(start: number) {
  let now = start
  const meter = createQuotaMeter({ clock: () => now })
  return { meter, advance: (ms: number) => (now += ms) }
}

describe('the quota meter', () => {
  it('refuses the request past the per-minute limit and admits again when the window ends', () => {
    const { meter, advance } = meterAt(Date.UTC(2026, 0, 1, 12))
    const limits = { requests_per_minute: 2 }
    for (let i = 0; i < 2; i++) {
      expect(meter.check('t:a', limits)).toBeUndefined()
      meter.admit('t:a')
      advance(1000)
    }
    expect(meter.check('t:a', limits)).toEqual({
      limit: 'requests_per_minute',
      value: 2,
      retryAfterMs: 58_000,
    })
    expect(meter.check('t:b', limits)).toBeUndefined() // another caller has its own window
    advance(58_000)
    expect(meter.check('t:a', limits)).toBeUndefined()
    expect(meter.state('t:a', limits).requests).toEqual({ limit: 2, remaining: 2, resetMs: 60_000 })
  })

  it('admits while under a token limit and refuses once spent tokens reach it', () => {
    const { meter } = meterAt(Date.UTC(2026, 0, 1, 12))
    const limits = { tokens_per_minute: 100 }
    expect(meter.check('k', limits)).toBeUndefined()
    meter.admit('k')
    meter.spend('k', 150) // tokens are known only at the end: the overshoot the docs bound
    expect(meter.check('k', limits)?.limit).toBe('tokens_per_minute')
    expect(meter.state('k', limits).tokens?.remaining).toBe(-50)
  })

  it('counts tokens per UTC day, seeded from the ledger, and resets at midnight', () => {
    const { meter, advance } = meterAt(Date.UTC(2026, 0, 1, 23, 0))
    const limits = { tokens_per_day: 1000 }
    meter.seedDay('i:kid@home', 990)
    meter.spend('i:kid@home', 20)
    expect(meter.check('i:kid@home', limits)).toEqual({
      limit: 'tokens_per_day',
      value: 1000,
      retryAfterMs: 3_600_000,
    })
    advance(3_600_000)
    expect(meter.check('i:kid@home', limits)).toBeUndefined()
  })
})

describe('the rate-limit headers from the meter', () => {
  it('writes what the state says, for every limit that is set', () => {
    const { meter, advance } = meterAt(Date.UTC(2026, 0, 1, 23, 59, 30))
    const limits = { requests_per_minute: 60, tokens_per_minute: 2000, tokens_per_day: 100_000 }
    meter.admit('t:a')
    meter.spend('t:a', 120)
    advance(1500)
    const direct: Record<string, unknown> = { 'content-type': 'application/json' }
    meter.addHeaders(direct, 't:a', limits)
    const viaState: Record<string, unknown> = { 'content-type': 'application/json' }
    addRateLimitHeaders(viaState, meter.state('t:a', limits))
    expect(direct).toEqual(viaState)
    expect(direct['x-ratelimit-remaining-requests']).toBe('59')
    expect(direct['x-ratelimit-remaining-tokens-day']).toBe('99880')
    expect(direct['x-ratelimit-reset-tokens-day']).toBe('29s') // midnight UTC
    const some: Record<string, unknown> = {}
    meter.addHeaders(some, 't:a', { requests_per_minute: 60 })
    expect(Object.keys(some)).toEqual([
      'x-ratelimit-limit-requests',
      'x-ratelimit-remaining-requests',
      'x-ratelimit-reset-requests',
    ])
  })
})

describe('quota text', () => {
  it('parses the short and long names, and refuses nonsense', () => {
    expect(parseQuotaSpec('rpm=60, tpd=200000')).toEqual({
      ok: true,
      limits: { requests_per_minute: 60, tokens_per_day: 200000 },
    })
    expect(parseQuotaSpec('tokens_per_minute=5')).toEqual({ ok: true, limits: { tokens_per_minute: 5 } })
    expect(parseQuotaSpec('')).toEqual({ ok: true, limits: {} })
    expect(parseQuotaSpec('rpm=0').ok).toBe(false)
    expect(parseQuotaSpec('rpx=1').ok).toBe(false)
  })

  it("writes OpenAI's headers and durations", () => {
    expect(resetText(250)).toBe('250ms')
    expect(resetText(12_000)).toBe('12s')
    expect(resetText(90_000)).toBe('1m30s')
    expect(resetText(3_600_000 * 3 + 120_000)).toBe('3h2m0s')
    const head: Record<string, unknown> = { 'content-type': 'application/json' }
    addRateLimitHeaders(head, { requests: { limit: 5, remaining: -1, resetMs: 1500 } })
    expect(head).toEqual({
      'content-type': 'application/json',
      'x-ratelimit-limit-requests': '5',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '2s',
    })
  })
})
