import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createQuotaMeter } from '@svc/auth'
import type { DispatchRecord } from '@svc/dispatcher'
import { afterEach, describe, expect, it } from 'vitest'
import { type LedgerDelta, openLedger } from './ledger'
import { createUsageRecorder } from './usage-recorder'
import { zeroCounters } from './usage-types'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

async function ledgerPath() {
  const dir = await mkdtemp(join(tmpdir(), 'svc-ledger-'))
  dirs.push(dir)
  return join(dir, 'usage.db')
}

const DAY = 86_400
const delta = (hour: number, fields: Partial<LedgerDelta>): LedgerDelta => ({
  hour,
  token: 'tok',
  identity: '',
  slot: 'primary',
  model: 'm',
  ...zeroCounters(),
  ...fields,
})

describe('the usage ledger', () => {
  it('adds counters per hour and sums them per group', async () => {
    const ledger = openLedger(await ledgerPath())
    ledger.add([
      delta(3600, { requests: 1, prompt_tokens: 5 }),
      delta(3600, { requests: 2, prompt_tokens: 1 }),
    ])
    ledger.add([delta(7200, { requests: 1, slot: 'embed' })])
    expect(ledger.query({ groupBy: 'slot', since: 0, until: DAY })).toEqual([
      { key: 'embed', ...zeroCounters(), requests: 1 },
      { key: 'primary', ...zeroCounters(), requests: 3, prompt_tokens: 6 },
    ])
    expect(ledger.query({ groupBy: 'token', since: 0, until: DAY, token: 'other' })).toEqual([])
    ledger.close()
  })

  it('folds hourly rows older than the retention into daily rows, and drops old daily rows', async () => {
    const ledger = openLedger(await ledgerPath())
    const now = 100 * DAY + 5 * 3600
    ledger.add([
      delta(2 * DAY + 3600, { requests: 1 }),
      delta(2 * DAY + 7200, { requests: 2 }),
      delta(50 * DAY + 3600, { requests: 4 }),
      delta(99 * DAY + 3600, { requests: 8 }),
    ])
    ledger.prune(now, { hourlyDays: 30, dailyDays: 90 })
    expect(ledger.query({ groupBy: 'hour', since: 0, until: now })).toEqual([
      { key: '1970-02-20T00:00:00Z', ...zeroCounters(), requests: 4 }, // day 50: one daily row
      { key: '1970-04-10T01:00:00Z', ...zeroCounters(), requests: 8 }, // yesterday: still hourly
    ])
    ledger.prune(now, { hourlyDays: 30, dailyDays: 90 }) // idempotent
    expect(ledger.query({ groupBy: 'day', since: 0, until: now }).map((r) => r.requests)).toEqual([4, 8])
    ledger.close()
  })

  it('writes counts in batches, and a reopened ledger seeds today\u2019s tokens into the quota meter', async () => {
    const path = await ledgerPath()
    const now = Date.UTC(2026, 4, 1, 10)
    const record: DispatchRecord = {
      route: '/v1/chat/completions',
      slot: 'primary',
      status: 200,
      outcome: 'ok',
      seconds: 0.1,
      model: 'tiny',
      usage: { promptTokens: 7, completionTokens: 3 },
    }
    const first = createUsageRecorder({
      ledger: openLedger(path),
      meter: createQuotaMeter(),
      clock: () => now,
    })
    first.record({ token: 'tok', identity: 'kid@home' }, record)
    expect(first.ledger.query({ groupBy: 'token', since: 0, until: now / 1000 + 3600 })).toEqual([])
    first.close() // the last batch
    const meter = createQuotaMeter({ clock: () => now })
    const second = createUsageRecorder({ ledger: openLedger(path), meter, clock: () => now })
    // Through the recorder's meter, which reads the ledger before its first answer.
    expect(second.meter.state('t:tok', { tokens_per_day: 100 }).tokensDay?.remaining).toBe(90)
    expect(second.meter.state('i:kid@home', { tokens_per_day: 100 }).tokensDay?.remaining).toBe(90)
    second.close()
  })

  it('opens no database while nothing is counted, checked or asked, and writes the first batch as before', async () => {
    const path = await ledgerPath()
    const now = Date.UTC(2026, 4, 1, 10)
    const idle = createUsageRecorder({
      ledger: openLedger(path),
      meter: createQuotaMeter(),
      clock: () => now,
    })
    idle.flush() // what the timer does
    idle.close()
    expect(existsSync(path)).toBe(false)

    const busy = createUsageRecorder({
      ledger: openLedger(path),
      meter: createQuotaMeter(),
      clock: () => now,
    })
    busy.record(
      { token: 'tok', identity: '' },
      { route: '/v1/chat/completions', slot: 'primary', status: 200, outcome: 'ok', seconds: 0.1 },
    )
    busy.flush()
    expect(existsSync(path)).toBe(true)
    expect(busy.ledger.query({ groupBy: 'token', since: 0, until: now / 1000 + 3600 })).toEqual([
      { key: 'tok', ...zeroCounters(), requests: 1 },
    ])
    busy.close()
  })
})
