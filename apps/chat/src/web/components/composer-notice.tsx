import type { ComponentChildren } from 'preact'
import { newChat } from '../actions'
import { dashboardSettings, loadModel } from '../model-actions'
import type { SendBlock } from '../send-block'
import { useChat } from '../store'

/**
 * What stands in the way of sending, above the message box, with its fix in the page: a Load button
 * for a model that is not loaded, New chat (and, behind svc's proxy, the slot's settings in the
 * dashboard) for a conversation longer than the model's context. Never a command.
 */
export function ComposerNotice({
  id,
  block,
  tooLarge,
}: {
  /** The notice's id, for the Send button's `aria-describedby`. */
  id: string
  block: SendBlock | null
  tooLarge: string | null
}) {
  const notice = useChat((s) => s.notice)
  const loading = useChat((s) => s.loading)
  const models = useChat((s) => s.models)
  if (tooLarge)
    return (
      <Line id={id} alert>
        {tooLarge}
      </Line>
    )
  const load = notice?.kind === 'not-loaded' ? notice.model : notice ? undefined : block?.load
  if (load) {
    const busy = loading === load
    return (
      <Line id={id}>
        {busy ? `Loading ${load}… the answer can be sent once it is ready.` : `${load} is not loaded.`}{' '}
        <button
          type="button"
          class="svc-button svc-button-primary"
          disabled={loading !== null}
          aria-label={busy ? `Loading ${load}` : `Load ${load}`}
          onClick={() => void loadModel(load)}
        >
          {busy ? 'Loading…' : 'Load'}
        </button>
      </Line>
    )
  }
  if (notice?.kind === 'forbidden') {
    return (
      <Line id={id} alert>
        {notice.model} is not loaded, and the chat app may not load it: ask an admin to load {notice.model}.
      </Line>
    )
  }
  if (notice?.kind === 'context') {
    const slot = models?.models.find((m) => m.id === notice.model)?.slot ?? null
    const settings = dashboardSettings(slot)
    return (
      <Line id={id} alert>
        This conversation is longer than {notice.model}’s context.{' '}
        <button type="button" class="svc-button" onClick={newChat}>
          New chat
        </button>
        {settings ? (
          <>
            {' '}
            <a href={settings} target="_blank" rel="noreferrer">
              Change {slot}’s context size
            </a>
          </>
        ) : null}
      </Line>
    )
  }
  if (notice?.kind === 'error')
    return (
      <Line id={id} alert>
        {notice.text}
      </Line>
    )
  return block ? <Line id={id}>{block.text}</Line> : null
}

function Line({ id, alert, children }: { id: string; alert?: boolean; children: ComponentChildren }) {
  return (
    <p id={id} class="chat-reason" role={alert ? 'alert' : 'status'}>
      {children}
    </p>
  )
}
