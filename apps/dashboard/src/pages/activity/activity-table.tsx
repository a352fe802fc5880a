import type { ActivityEntry } from './activity-feed'
import {
  callerName,
  count,
  duration,
  modelName,
  SURFACE_WORDS,
  speed,
  statusText,
  timeOfDay,
} from './activity-format'

const COLUMNS = [
  'Time',
  'Caller',
  'Model',
  'Surface',
  'Status',
  'Queue',
  'Load',
  'TTFT',
  'In',
  'Out',
  'Tok/s',
]

export interface ActivityTableProps {
  inflight: ActivityEntry[]
  recent: ActivityEntry[]
  /** Now (ms), for the elapsed time of requests in flight. */
  now: number
  /** Admins: a column with a button for the bodies capture kept. */
  onView?: ((entry: ActivityEntry) => void) | undefined
}

/**
 * Requests as a table: in flight on top (marked live, their time so far), then the finished ones,
 * newest first. Below 600 px each row is a card of labelled figures (activity.css), so the page never
 * scrolls sideways.
 */
export function ActivityTable({ inflight, recent, now, onView }: ActivityTableProps) {
  const columns = onView ? [...COLUMNS, 'Bodies'] : COLUMNS
  const empty = inflight.length === 0 && recent.length === 0
  return (
    <table class="activity-table">
      <caption class="svc-visually-hidden">Requests, in flight first, then the latest</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {inflight.map((e) => (
          <Row key={`live-${e.id}`} entry={e} now={now} onView={onView} />
        ))}
        {recent.map((e, i) => (
          <Row key={`${e.id}-${e.at}-${i}`} entry={e} now={now} onView={onView} />
        ))}
        {empty ? (
          <tr class="activity-empty">
            <td colSpan={columns.length}>No requests yet. They appear here as they come in.</td>
          </tr>
        ) : null}
      </tbody>
    </table>
  )
}

function Row({
  entry: e,
  now,
  onView,
}: {
  entry: ActivityEntry
  now: number
  onView: ActivityTableProps['onView']
}) {
  const failed = !e.live && (e.status ?? 0) >= 400
  const elapsed = e.live ? Math.max(e.duration_ms, now - e.at) : e.duration_ms
  return (
    <tr class={e.live ? 'activity-live' : failed ? 'activity-failed' : undefined} data-request-id={e.id}>
      <th scope="row" data-label="Time">
        <time dateTime={new Date(e.at).toISOString()}>{timeOfDay(e.at)}</time>
      </th>
      <td data-label="Caller">{callerName(e)}</td>
      <td data-label="Model" class="activity-model">
        {modelName(e)}
      </td>
      <td data-label="Surface">{SURFACE_WORDS[e.surface] ?? e.surface}</td>
      <td data-label="Status" title={e.live ? undefined : `${duration(e.duration_ms)} in all`}>
        {e.live ? (
          <span class="activity-live-badge">
            <span aria-hidden="true">●</span> live · {duration(elapsed)}
          </span>
        ) : (
          <>
            {statusText(e)} <span class="activity-took">· {duration(elapsed)}</span>
          </>
        )}
      </td>
      <td data-label="Queue">{duration(e.queue_ms)}</td>
      <td data-label="Load">{duration(e.load_ms)}</td>
      <td data-label="TTFT">{duration(e.ttft_ms)}</td>
      <td data-label="In">{count(e.tokens_in)}</td>
      <td data-label="Out">{count(e.tokens_out)}</td>
      <td data-label="Tok/s">{speed(e.tokens_per_s)}</td>
      {onView ? (
        <td data-label="Bodies">
          {e.captured ? (
            <button
              type="button"
              class="svc-button"
              aria-label={`View bodies of the request at ${timeOfDay(e.at)}`}
              onClick={() => onView(e)}
            >
              View
            </button>
          ) : (
            '—'
          )}
        </td>
      ) : null}
    </tr>
  )
}
