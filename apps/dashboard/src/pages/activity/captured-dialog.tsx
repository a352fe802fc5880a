import { Modal } from '@svc/ui'
import { api, ok } from '../../api/client'
import { useFetch } from '../../hooks/use-fetch'
import type { ActivityEntry } from './activity-feed'
import { modelName, statusText, timeOfDay } from './activity-format'

type Side = { headers: Record<string, string>; body: string | null; truncated: boolean }

/** What capture kept of one request: both sides' headers and bodies, secrets already redacted by svc. */
export function CapturedDialog({ entry, onClose }: { entry: ActivityEntry; onClose: () => void }) {
  const found = useFetch(() => ok(api.api.activity[':id'].$get({ param: { id: entry.id } })), [entry.id])
  const capture = found.data?.capture
  return (
    <Modal
      title={`Request at ${timeOfDay(entry.at)} · ${modelName(entry)}`}
      onDismiss={onClose}
      actions={
        <button type="button" class="svc-button" onClick={onClose}>
          Close
        </button>
      }
    >
      {found.error ? <p role="alert">{found.error}</p> : null}
      {found.data && !capture ? (
        <p>Capture kept nothing of this request (it has been pushed out since).</p>
      ) : null}
      {capture ? (
        <div class="activity-capture">
          <Body title="Request" side={capture.request} />
          <Body title={`Answer · ${statusText(entry)}`} side={capture.response} />
        </div>
      ) : null}
      {!found.data && !found.error ? <p class="loading">Loading…</p> : null}
    </Modal>
  )
}

function Body({ title, side }: { title: string; side: Side }) {
  return (
    <section aria-label={title}>
      <h3>{title}</h3>
      <details>
        <summary>Headers ({Object.keys(side.headers).length})</summary>
        <dl class="activity-headers">
          {Object.entries(side.headers).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </details>
      {side.body === null ? (
        <p class="hint">Not captured (an upload, or an answer svc translated).</p>
      ) : (
        <pre class="activity-body">{pretty(side.body)}</pre>
      )}
      {side.truncated ? <p class="hint">Cut at the capture limit.</p> : null}
    </section>
  )
}

/** JSON indented for reading; anything else (a stream, cut JSON) as it came. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
