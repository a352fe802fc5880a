/**
 * The usage ledger: `<state>/usage.db` (SQLite through better-sqlite3, WAL). Counters per hour, per
 * token, forwarded identity, slot and model; never a record of a request or its content.
 *
 * Rows older than the hourly retention are folded into one row per day (the day's start in `hour`);
 * daily rows older than the daily retention are removed (0 keeps them). Every call is synchronous and
 * short (one transaction); the recorder calls it off the request path, on a timer.
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { type Counters, USAGE_COLUMNS } from './usage-types'

/** One row of added counters: `hour` is the hour's start in Unix seconds. */
export interface LedgerDelta extends Counters {
  hour: number
  token: string
  identity: string
  slot: string
  model: string
}

export const GROUPS = ['token', 'identity', 'slot', 'model', 'day', 'hour'] as const
export type UsageGroup = (typeof GROUPS)[number]

export interface LedgerQuery {
  groupBy: UsageGroup
  /** Unix seconds, inclusive. */
  since: number
  /** Unix seconds, exclusive. */
  until: number
  /** Only this token's rows. */
  token?: string
}

export type LedgerRow = Counters & { key: string }

export interface UsageLedger {
  readonly path: string
  /** Adds the counters in one transaction. */
  add(deltas: readonly LedgerDelta[]): void
  /** Tokens (prompt + completion) since `since` (Unix s), per token id and per identity. */
  tokensSince(since: number): { tokens: Map<string, number>; identities: Map<string, number> }
  query(q: LedgerQuery): LedgerRow[]
  /** Folds and removes old rows (see the module comment); `now` in Unix seconds. */
  prune(now: number, retention: { hourlyDays: number; dailyDays: number }): void
  close(): void
}

const SUMS = USAGE_COLUMNS.map((c) => `sum(${c}) as ${c}`).join(', ')

const KEY_SQL: Record<UsageGroup, string> = {
  token: 'token',
  identity: 'identity',
  slot: 'slot',
  model: 'model',
  day: "strftime('%Y-%m-%d', hour, 'unixepoch')",
  hour: "strftime('%Y-%m-%dT%H:00:00Z', hour, 'unixepoch')",
}

/**
 * The ledger at `path`, opened (file, schema, native addon) on the first call that needs it, not
 * here: an API that serves nothing keeps no SQLite resident. `close` before any use does nothing.
 */
export function openLedger(path: string): UsageLedger {
  let open: UsageLedger | undefined
  let closed = false
  const db = () => {
    if (closed) throw new Error(`usage ledger ${path} is closed`)
    open ??= openNow(path)
    return open
  }
  return {
    path,
    add: (deltas) => {
      if (deltas.length) db().add(deltas)
    },
    tokensSince: (since) => db().tokensSince(since),
    query: (q) => db().query(q),
    prune: (now, retention) => db().prune(now, retention),
    close() {
      closed = true
      open?.close()
    },
  }
}

function openNow(path: string): UsageLedger {
  mkdirSync(dirname(path), { recursive: true })
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  // WAL with NORMAL: a committed batch survives the process being killed; only a power cut may
  // lose the last one (the OS had not written it yet).
  db.pragma('synchronous = NORMAL')
  db.exec(`CREATE TABLE IF NOT EXISTS usage (
    hour INTEGER NOT NULL, token TEXT NOT NULL, identity TEXT NOT NULL, slot TEXT NOT NULL, model TEXT NOT NULL,
    ${USAGE_COLUMNS.map((c) => `${c} ${c === 'audio_seconds' ? 'REAL' : 'INTEGER'} NOT NULL DEFAULT 0`).join(', ')},
    PRIMARY KEY (hour, token, identity, slot, model)
  ) WITHOUT ROWID`)
  const keys = 'hour, token, identity, slot, model'
  const upsert = db.prepare(
    `INSERT INTO usage (${keys}, ${USAGE_COLUMNS.join(', ')})
     VALUES (@hour, @token, @identity, @slot, @model, ${USAGE_COLUMNS.map((c) => `@${c}`).join(', ')})
     ON CONFLICT (${keys}) DO UPDATE SET ${USAGE_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
  )
  const addAll = db.transaction((deltas: readonly LedgerDelta[]) => {
    for (const d of deltas) upsert.run(d)
  })
  const since = db.prepare(
    `SELECT token, identity, sum(prompt_tokens + completion_tokens) as tokens FROM usage
     WHERE hour >= ? GROUP BY token, identity`,
  )
  const fold = db.transaction((cutoff: number, dropBefore: number) => {
    const old = db
      .prepare(
        `SELECT (hour / 86400) * 86400 as hour, token, identity, slot, model, ${SUMS}
         FROM usage WHERE hour < ? GROUP BY 1, token, identity, slot, model`,
      )
      .all(cutoff) as LedgerDelta[]
    db.prepare('DELETE FROM usage WHERE hour < ?').run(cutoff)
    for (const d of old) if (d.hour >= dropBefore) upsert.run(d)
  })

  return {
    path,
    add(deltas) {
      if (deltas.length) addAll(deltas)
    },
    tokensSince(from) {
      const tokens = new Map<string, number>()
      const identities = new Map<string, number>()
      for (const r of since.all(from) as { token: string; identity: string; tokens: number }[]) {
        if (r.token) tokens.set(r.token, (tokens.get(r.token) ?? 0) + r.tokens)
        if (r.identity) identities.set(r.identity, (identities.get(r.identity) ?? 0) + r.tokens)
      }
      return { tokens, identities }
    },
    query(q) {
      const key = KEY_SQL[q.groupBy]
      const where = `hour >= @since AND hour < @until${q.token !== undefined ? ' AND token = @token' : ''}`
      return db.prepare(`SELECT ${key} as key, ${SUMS} FROM usage WHERE ${where} GROUP BY 1 ORDER BY 1`).all({
        since: q.since,
        until: q.until,
        ...(q.token !== undefined ? { token: q.token } : {}),
      }) as LedgerRow[]
    },
    prune(now, retention) {
      const today = Math.floor(now / 86400) * 86400
      // Whole days only: the hourly rows of the day the cutoff falls in stay hourly until it has passed.
      const cutoff = today - retention.hourlyDays * 86400
      const dropBefore = retention.dailyDays > 0 ? today - retention.dailyDays * 86400 : 0
      fold(cutoff, dropBefore)
    },
    close() {
      db.close()
    },
  }
}
