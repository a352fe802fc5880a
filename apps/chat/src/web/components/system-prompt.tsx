import { useEffect, useState } from 'preact/hooks'
import { setSystem } from '../actions'
import { store, useChat } from '../store'

/**
 * The conversation's system prompt, folded away. Saved when the box loses focus; for a chat that is
 * not saved yet it is kept and sent with the first message's conversation.
 */
export function SystemPrompt() {
  const current = useChat((s) => s.current)
  const pending = useChat((s) => s.draftSystem)
  const saved = current ? current.system : pending
  const [draft, setDraft] = useState(saved)
  useEffect(() => setDraft(saved), [current?.id, saved])
  return (
    <details class="chat-system">
      <summary>System prompt{saved ? ' (set)' : ''}</summary>
      <textarea
        aria-label="System prompt"
        rows={4}
        maxLength={20_000}
        placeholder="Instructions for the model in this conversation, e.g. “Answer briefly.”"
        value={draft}
        onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
        onBlur={() => {
          if (draft === saved) return
          if (current) void setSystem(draft)
          else store.set({ draftSystem: draft })
        }}
      />
    </details>
  )
}
