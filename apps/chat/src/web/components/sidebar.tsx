import { useState } from 'preact/hooks'
import { newChat, search } from '../actions'
import { useChat } from '../store'

/** New chat, search by title, and the list of your conversations (newest first). */
export function Sidebar({ onClose }: { onClose: () => void }) {
  const conversations = useChat((s) => s.conversations)
  const currentId = useChat((s) => s.current?.id ?? null)
  const streaming = useChat((s) => s.streaming)
  const [query, setQuery] = useState('')
  return (
    <nav class="chat-sidebar" aria-label="Conversations">
      <div class="chat-sidebar-top">
        <button
          type="button"
          class="svc-button svc-button-primary"
          onClick={() => {
            newChat()
            onClose()
          }}
        >
          New chat
        </button>
        <input
          type="search"
          class="chat-search"
          aria-label="Search conversations"
          placeholder="Search titles"
          value={query}
          onInput={(event) => {
            const value = (event.target as HTMLInputElement).value
            setQuery(value)
            search(value)
          }}
        />
      </div>
      {conversations.length === 0 ? (
        <p class="chat-muted">{query ? 'No conversation matches.' : 'No conversations yet.'}</p>
      ) : (
        <ul class="chat-conversations">
          {conversations.map((c) => (
            <li key={c.id}>
              <a href={`#/c/${c.id}`} aria-current={c.id === currentId ? 'page' : undefined}>
                {c.title}
                {streaming === c.id ? <span class="chat-muted"> · answering…</span> : null}
              </a>
            </li>
          ))}
        </ul>
      )}
    </nav>
  )
}
