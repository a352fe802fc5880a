import type { TokenStore } from '@svc/auth'
import { SvcError } from '@svc/core'
import { Hono } from 'hono'
import * as v from 'valibot'
import { GROUPS, type LedgerRow } from '../usage/ledger'
import type { UsageRecorder } from '../usage/usage-recorder'
import { addCounters, type Counters, USAGE_COLUMNS, zeroCounters } from '../usage/usage-types'
import { parseWith } from '../validate'
import { isAdmin } from '../views/redact'

const DAY_S = 86_400
/** Without `since`: the last 30 days (UTC days, today included). */
const DEFAULT_DAYS = 30

const Time = v.pipe(
  v.string(),
  v.check((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'an ISO 8601 date or time'),
)

const UsageQuerySchema = v.object({
  group_by: v.optional(v.picklist(GROUPS, `one of ${GROUPS.join(', ')}`), 'token'),
  since: v.optional(Time),
  until: v.optional(Time),
})

/** A row as the API answers it: the group's key under the group's name, then the counters. */
export type UsageRow = { [group: string]: string | number | null } & Counters & { total_tokens: number }

/**
 * `GET /api/usage?group_by=token|identity|slot|model|day|hour&since=…&until=…`, mounted at
 * `/api/usage`: the ledger's counters summed per group over `[since, until)` (ISO dates or times,
 * rounded down to the hour; default the last 30 days), with `totals`. What was counted in the last
 * seconds and not yet written is written first, so the answer is up to date.
 *
 * Admins (and the proxy's people) see everyone; any other token sees its own rows only. Rows of
 * `group_by=token` carry the token's `label` for admins (null for a revoked token); an empty key
 * (`""`) is usage by no token (auth off, or a person signed in through the proxy).
 */
export function usageRoutes(deps: { usage?: UsageRecorder; auth: { store?: TokenStore } }) {
  return new Hono().get('/', (c) => {
    const usage = deps.usage
    if (!usage) throw new SvcError('route.not_found', 'usage is off here (SVC_USAGE_ENABLED=0)')
    const q = parseWith(UsageQuerySchema, c.req.query())
    const now = Date.now()
    const until = hourOf(q.until ? Date.parse(q.until) : now + 3_600_000)
    const since = hourOf(q.since ? Date.parse(q.since) : now - (DEFAULT_DAYS - 1) * DAY_S * 1000, DAY_S)
    if (since >= until)
      throw new SvcError('request.invalid', 'since must be before until', { param: 'since' })
    const principal = c.get('principal')
    const admin = isAdmin(principal)
    const token = !admin && principal.kind === 'token' ? principal.tokenId : undefined
    usage.flush()
    const found = usage.ledger.query({ groupBy: q.group_by, since, until, ...(token ? { token } : {}) })
    const totals = zeroCounters()
    const rows = found.map((r) => {
      addCounters(totals, r)
      return shape(q.group_by, r, admin && q.group_by === 'token' ? deps.auth.store : undefined)
    })
    return c.json({
      group_by: q.group_by,
      since: new Date(since * 1000).toISOString(),
      until: new Date(until * 1000).toISOString(),
      rows,
      totals: { ...totals, total_tokens: totals.prompt_tokens + totals.completion_tokens },
    })
  })
}

function shape(group: string, r: LedgerRow, store: TokenStore | undefined): UsageRow {
  const row: Record<string, string | number | null> = { [group]: r.key }
  if (store) row.label = r.key ? (store.lookup(r.key)?.label ?? null) : null
  for (const c of USAGE_COLUMNS) row[c] = c === 'audio_seconds' ? Math.round(r[c] * 1000) / 1000 : r[c]
  row.total_tokens = r.prompt_tokens + r.completion_tokens
  return row as UsageRow
}

/** Unix seconds of `ms` rounded down to `unit` seconds (an hour unless told). */
function hourOf(ms: number, unit = 3600): number {
  return Math.floor(ms / 1000 / unit) * unit
}
