import type { SlotState } from '@svc/core'
import { STATE_LOOK, StateBadge } from '@svc/ui'
import { useId } from 'preact/hooks'
import { chooseModel } from '../actions'
import { useChat } from '../store'

/** The chat models svc offers (`/v1/models`), each with whether it is loaded. */
export function ModelPicker() {
  const models = useChat((s) => s.models)
  const model = useChat((s) => s.model)
  const streaming = useChat((s) => s.streaming)
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
          const state = m?.loaded
            ? 'loaded'
            : m?.state
              ? (STATE_LOOK[m.state as SlotState]?.label ?? m.state).toLowerCase()
              : 'not loaded'
          return (
            <option key={name} value={name}>
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
