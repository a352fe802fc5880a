import type { SlotState } from '@svc/core'
import { STATE_LOOK, StateBadge } from '@svc/ui'
import { useId } from 'preact/hooks'
import { chooseModel } from '../actions'
import { useChat } from '../store'

/**
 * The chat models svc offers (`/v1/models`, which lists only what can answer here), each marked
 * ● loaded or ○ not loaded (or the state it is on its way through). Choosing one that is not loaded
 * offers Load above the message box.
 */
export function ModelPicker() {
  const models = useChat((s) => s.models)
  const model = useChat((s) => s.model)
  const streaming = useChat((s) => s.streaming)
  const loading = useChat((s) => s.loading)
  const id = useId()
  if (!models) return null
  const chosen = models.models.find((m) => m.id === model)
  return (
    <div class="chat-model">
      <label for={id}>Model</label>
      <select
        id={id}
        value={model}
        disabled={streaming !== null}
        onChange={(event) => chooseModel((event.target as HTMLSelectElement).value)}
      >
        {models.chat.length === 0 ? <option value="">no chat model</option> : null}
        {models.chat.map((name) => {
          const m = models.models.find((x) => x.id === name)
          const detail = m?.model && m.model !== name ? ` · ${m.model}` : ''
          const look = m?.state && m.state !== 'offline' ? STATE_LOOK[m.state as SlotState]?.label : undefined
          const state =
            loading === name ? 'loading…' : m?.loaded ? 'loaded' : (look ?? 'not loaded').toLowerCase()
          return (
            <option key={name} value={name}>
              {m?.loaded ? '● ' : '○ '}
              {name}
              {detail} — {state}
            </option>
          )
        })}
      </select>
      {chosen?.state && chosen.state in STATE_LOOK ? <StateBadge state={chosen.state as SlotState} /> : null}
    </div>
  )
}
