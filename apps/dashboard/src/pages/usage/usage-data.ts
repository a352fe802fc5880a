/** What `GET /api/usage` answers, and the days of a range with their totals (pure). */
import { request } from '../../api/client'
import type { UsageAnswer } from '../../api/types'

/** What `GET /api/usage` answers: the API's own type (a counter it renames breaks `tsc` here). */
export type { UsageAnswer }
export type UsageRow = UsageAnswer['rows'][number]

export async function fetchUsage(groupBy: string, since: string): Promise<UsageAnswer> {
  const query = new URLSearchParams({ group_by: groupBy, since })
  return (await (await request(`/api/usage?${query}`)).json()) as UsageAnswer
}

/** The first UTC day of a range of `days` days ending today, as `YYYY-MM-DD`. */
export function rangeStart(days: number, now = Date.now()): string {
  return new Date(now - (days - 1) * 86_400_000).toISOString().slice(0, 10)
}

export interface DayBar {
  day: string
  prompt: number
  completion: number
}

/** One bar per day of the range (days without use are 0), from `group_by=day` rows. */
export function dayBars(rows: readonly UsageRow[], days: number, now = Date.now()): DayBar[] {
  const byDay = new Map(rows.map((r) => [String(r.day), r]))
  const bars: DayBar[] = []
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(now - i * 86_400_000).toISOString().slice(0, 10)
    const r = byDay.get(day)
    bars.push({ day, prompt: r?.prompt_tokens ?? 0, completion: r?.completion_tokens ?? 0 })
  }
  return bars
}
