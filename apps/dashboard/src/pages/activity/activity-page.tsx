import { Select, useToasts } from '@svc/ui'
import { useId, useMemo, useState } from 'preact/hooks'
import { api, ok } from '../../api/client'
import { Field } from '../../components/field'
import { Page } from '../../components/page'
import { useNow } from '../../hooks/use-now'
import { useSession } from '../../session-context'
import './activity.css'
import { type ActivityEntry, type CaptureState, useActivityFeed } from './activity-feed'
import { callerName, modelName, timeOfDay } from './activity-format'
import { ActivityTable } from './activity-table'
import { CapturedDialog } from './captured-dialog'

/** How long one switch of the capture control keeps capture on. */
const CAPTURE_MINUTES = 10

/**
 * Requests as they happen (`/api/events?activity=1`): in flight on top, then the last few hundred
 * with their waits, time to first token, tokens and speed; filters by model and caller. Admins switch
 * body capture on for a while and read what it kept; anyone else sees their own requests only.
 */
export function ActivityPage() {
  const session = useSession()
  const admin = session.scope === 'admin'
  const [feed, setCapture] = useActivityFeed()
  const [model, setModel] = useState('')
  const [caller, setCaller] = useState('')
  const [viewing, setViewing] = useState<ActivityEntry | null>(null)
  const now = useNow(500, feed.inflight.length > 0 || feed.capture?.on === true)
  const modelId = useId()
  const callerId = useId()
  const all = useMemo(() => [...feed.inflight, ...feed.recent], [feed])
  const models = useMemo(() => distinct(all.map(modelName).filter((m) => m !== '—')), [all])
  const callers = useMemo(() => distinct(all.map(callerName)), [all])
  const keep = (e: ActivityEntry) =>
    (!model || modelName(e) === model || e.slot === model) && (!caller || callerName(e) === caller)
  return (
    <Page
      title="Activity"
      class="stack"
      tools={
        <div class="activity-tools">
          <Field id={modelId} label="Model" inline>
            <Select id={modelId} value={model} choices={models} blank="All models" onChange={setModel} />
          </Field>
          <Field id={callerId} label="Caller" inline>
            <Select id={callerId} value={caller} choices={callers} blank="All callers" onChange={setCaller} />
          </Field>
          {admin && feed.capture ? (
            <CaptureSwitch state={feed.capture} now={now} onChange={setCapture} />
          ) : null}
        </div>
      }
    >
      {!admin ? <p class="hint">You see the requests of your own token only.</p> : null}
      {feed.connection === 'reconnecting' ? (
        <p class="notice" role="status">
          Live updates paused; reconnecting…
        </p>
      ) : null}
      {feed.connection === 'refused' ? (
        <p role="alert">This token may not read the activity. Sign in with a token that may read the API.</p>
      ) : null}
      {feed.connection === 'connecting' ? <p class="loading">Loading…</p> : null}
      {feed.connection === 'open' || feed.recent.length > 0 ? (
        <ActivityTable
          inflight={feed.inflight.filter(keep)}
          recent={feed.recent.filter(keep)}
          now={now}
          onView={admin ? setViewing : undefined}
        />
      ) : null}
      {viewing ? <CapturedDialog entry={viewing} onClose={() => setViewing(null)} /> : null}
    </Page>
  )
}

/** The admin's body-capture switch, with what it is doing now. */
function CaptureSwitch({
  state,
  now,
  onChange,
}: {
  state: CaptureState
  now: number
  onChange: (state: CaptureState) => void
}) {
  const toast = useToasts()
  const [busy, setBusy] = useState(false)
  const on = state.on && (state.until === null || state.until > now)
  const id = useId()
  const toggle = async () => {
    setBusy(true)
    try {
      onChange(await ok(api.api.activity.capture.$post({ json: { on: !on, minutes: CAPTURE_MINUTES } })))
    } catch (e) {
      toast.show('error', `Capture did not switch: ${(e as Error).message}`)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="activity-capture-switch">
      <input
        id={id}
        type="checkbox"
        role="switch"
        checked={on}
        aria-checked={on}
        disabled={busy}
        aria-describedby={`${id}-state`}
        onChange={() => void toggle()}
      />
      <label for={id}>Capture bodies</label>
      <small id={`${id}-state`} class="hint">
        {on && state.until !== null
          ? `On until ${timeOfDay(state.until)} · ${state.kept} kept`
          : `Off · ${CAPTURE_MINUTES} min when on${state.kept ? ` · ${state.kept} kept` : ''}`}
      </small>
    </div>
  )
}

function distinct(values: string[]): string[] {
  return [...new Set(values)].sort((a, b) => a.localeCompare(b))
}
