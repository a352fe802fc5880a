import { Select } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { DataTable } from '../components/data-table'
import { Field } from '../components/field'
import { Page } from '../components/page'
import { useFetch } from '../hooks/use-fetch'
import { useSession } from '../session-context'
import { TokensChart } from './usage/tokens-chart'
import { dayBars, fetchUsage, rangeStart, type UsageRow } from './usage/usage-data'

const RANGES = [
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
] as const

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en') : '0')
/** `1 request`, `2 requests`, `0 tokens`. */
const count = (v: unknown, noun: string) => `${n(v)} ${noun}${v === 1 ? '' : 's'}`

/**
 * Who used what (`GET /api/usage`): tokens per day as a chart, then a table per token and one per
 * slot. An admin sees everyone; another token sees its own use.
 */
export function UsagePage() {
  const session = useSession()
  const rangeId = useId()
  const [range, setRange] = useState<(typeof RANGES)[number]['value']>('30')
  const days = Number(range)
  const since = rangeStart(days)
  const usage = useFetch(async () => {
    const [day, token, slot] = await Promise.all(['day', 'token', 'slot'].map((g) => fetchUsage(g, since)))
    return { day: day!, token: token!, slot: slot! }
  }, [since])
  const data = usage.data
  return (
    <Page
      title="Usage"
      class="stack"
      tools={
        <Field id={rangeId} label="Range" inline>
          <Select id={rangeId} value={range} choices={RANGES} onChange={setRange} />
        </Field>
      }
    >
      {session.scope !== 'admin' ? <p class="hint">You see the use of your own token only.</p> : null}
      {usage.error ? <p role="alert">{usage.error}</p> : null}
      <section class="card" aria-labelledby={`${rangeId}-chart`}>
        <h2 id={`${rangeId}-chart`}>Tokens per day</h2>
        {data ? <TokensChart bars={dayBars(data.day.rows, days)} /> : <p class="loading">Loading…</p>}
        {data ? (
          <p>
            {count(data.day.totals.requests, 'request')}, {count(data.day.totals.total_tokens, 'token')}
            {data.day.totals.images ? `, ${count(data.day.totals.images, 'image')}` : ''}
            {data.day.totals.audio_seconds
              ? `, ${n(data.day.totals.audio_seconds)} s of audio transcribed`
              : ''}
            {data.day.totals.characters ? `, ${n(data.day.totals.characters)} characters spoken` : ''}.
          </p>
        ) : null}
      </section>
      <section class="card" aria-labelledby={`${rangeId}-tokens`}>
        <h2 id={`${rangeId}-tokens`}>By token</h2>
        <DataTable
          caption="Usage by token"
          columns={['Token', 'Id', 'Requests', 'Prompt', 'Completion', 'Total']}
        >
          {(data?.token.rows ?? []).map((r) => (
            <tr key={String(r.token)}>
              <th scope="row">{who(r)}</th>
              <td>{r.token ? <code>{r.token}</code> : '-'}</td>
              <Counts row={r} keys={['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens']} />
            </tr>
          ))}
          {data && data.token.rows.length === 0 ? <Empty span={6} /> : null}
        </DataTable>
      </section>
      <section class="card" aria-labelledby={`${rangeId}-slots`}>
        <h2 id={`${rangeId}-slots`}>By slot</h2>
        <DataTable
          caption="Usage by slot"
          columns={['Slot', 'Requests', 'Prompt', 'Completion', 'Audio (s)', 'Characters', 'Images']}
        >
          {(data?.slot.rows ?? []).map((r) => (
            <tr key={String(r.slot)}>
              <th scope="row">{r.slot === '-' ? '(none: refused before a slot)' : r.slot}</th>
              <Counts
                row={r}
                keys={[
                  'requests',
                  'prompt_tokens',
                  'completion_tokens',
                  'audio_seconds',
                  'characters',
                  'images',
                ]}
              />
            </tr>
          ))}
          {data && data.slot.rows.length === 0 ? <Empty span={7} /> : null}
        </DataTable>
      </section>
    </Page>
  )
}

function who(r: UsageRow): string {
  if (!r.token) return '(no token: auth off or signed in through the proxy)'
  return typeof r.label === 'string' ? r.label : r.label === null ? '(revoked)' : 'this token'
}

function Counts({ row, keys }: { row: UsageRow; keys: readonly (keyof UsageRow)[] }) {
  return (
    <>
      {keys.map((k) => (
        <td key={k} class="num">
          {n(row[k])}
        </td>
      ))}
    </>
  )
}

function Empty({ span }: { span: number }) {
  return (
    <tr>
      <td colSpan={span}>Nothing used in this range.</td>
    </tr>
  )
}
