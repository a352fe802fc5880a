import { describe, expect, it } from 'vitest'
import { type ActivityEntry, applyActivity, EMPTY_FEED } from './activity-feed'
import { callerName, duration, speed, statusText } from './activity-format'

const entry = (over: Partial<ActivityEntry>): ActivityEntry => ({
  id: 'r1',
  at: 0,
  live: false,
  caller: null,
  surface: 'chat',
  route: '/v1/chat/completions',
  slot: 'primary',
  model: 'tiny',
  status: 200,
  outcome: 'ok',
  queue_ms: 1,
  load_ms: 0,
  ttft_ms: 40,
  duration_ms: 900,
  tokens_in: 5,
  tokens_out: 10,
  tokens_per_s: 12.5,
  captured: false,
  ...over,
})

describe('the Activity page\u2019s words and state', () => {
  it('words figures, unknowns as a dash', () => {
    expect([duration(840), duration(1340), duration(125_000), duration(null)]).toEqual([
      '840 ms',
      '1.3 s',
      '2 min 5 s',
      '—',
    ])
    expect([speed(12.345), speed(null)]).toEqual(['12.3', '—'])
    expect(statusText(entry({ live: true }))).toBe('live')
    expect(statusText(entry({ status: 499, outcome: 'client-gone' }))).toBe('499 client left')
    expect(callerName(entry({ caller: { token_id: 't', label: 'app', identity: 'ann@x' } }))).toBe(
      'app for ann@x',
    )
    expect(callerName(entry({ caller: null }))).toBe('anyone')
  })

  it('moves a request from in flight to finished, and counts what capture kept', () => {
    const capture = { on: true, until: 1, max_bytes: 65536, kept: 0 }
    let s = applyActivity(EMPTY_FEED, 'activity.snapshot', { inflight: [], recent: [], capture })
    s = applyActivity(s, 'activity.start', entry({ live: true, status: null }))
    expect(s.inflight.map((e) => e.id)).toEqual(['r1'])
    s = applyActivity(s, 'activity.end', entry({ captured: true }))
    expect(s.inflight).toEqual([])
    expect(s.recent.map((e) => e.id)).toEqual(['r1'])
    expect(s.capture?.kept).toBe(1)
  })
})
