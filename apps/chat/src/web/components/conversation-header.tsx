import { ConfirmDialog } from '@svc/ui'
import { useState } from 'preact/hooks'
import { remove, rename } from '../actions'
import { useChat } from '../store'
import { ModelPicker } from './model-picker'
import { SystemPrompt } from './system-prompt'

/** The open conversation's title (rename), model, system prompt, export and delete. */
export function ConversationHeader() {
  const current = useChat((s) => s.current)
  const [renaming, setRenaming] = useState(false)
  const [confirming, setConfirming] = useState(false)
  return (
    <header class="chat-header">
      {current && renaming ? (
        <form
          class="chat-rename"
          onSubmit={(event) => {
            event.preventDefault()
            const title = new FormData(event.currentTarget).get('title')
            if (typeof title === 'string' && title.trim()) void rename(title.trim())
            setRenaming(false)
          }}
        >
          <input
            name="title"
            aria-label="Conversation title"
            defaultValue={current.title}
            maxLength={200}
            autofocus
            onKeyDown={(event) => {
              if (event.key === 'Escape') setRenaming(false)
            }}
          />
          <button type="submit" class="svc-button">
            Save
          </button>
        </form>
      ) : (
        <h1 class="chat-title">{current?.title ?? 'New chat'}</h1>
      )}
      <ModelPicker />
      <SystemPrompt />
      {current ? (
        <div class="chat-header-actions">
          {!renaming ? (
            <button type="button" class="svc-button" onClick={() => setRenaming(true)}>
              Rename
            </button>
          ) : null}
          <a class="svc-button" href={`api/conversations/${current.id}/export?format=md`} download>
            Export Markdown
          </a>
          <a class="svc-button" href={`api/conversations/${current.id}/export?format=json`} download>
            Export JSON
          </a>
          <button type="button" class="svc-button svc-button-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      ) : null}
      {confirming && current ? (
        <ConfirmDialog
          title="Delete this conversation?"
          confirmLabel="Delete"
          danger
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false)
            void remove(current.id)
          }}
        >
          “{current.title}” and its messages and images are deleted for good.
        </ConfirmDialog>
      ) : null}
    </header>
  )
}
