import { ConfirmDialog } from '@svc/ui'
import { useState } from 'preact/hooks'
import { remove, rename } from '../actions'
import { useChat } from '../store'
import { ActionMenu, MenuItem } from './action-menu'
import { ModelPicker } from './model-picker'
import { SystemPrompt } from './system-prompt'

/** The open conversation's title, model and system prompt; Rename, Export and Delete in its "⋯" menu. */
export function ConversationHeader() {
  const current = useChat((s) => s.current)
  const [renaming, setRenaming] = useState(false)
  const [confirming, setConfirming] = useState(false)
  return (
    <header class="chat-header">
      <div class="chat-title-row">
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
          <h1 class="chat-title" title={current?.title}>
            {current?.title ?? 'New chat'}
          </h1>
        )}
        {current ? (
          <ActionMenu label="Conversation actions">
            {(close) => (
              <>
                <MenuItem close={close} onPick={() => setRenaming(true)}>
                  Rename
                </MenuItem>
                <a
                  role="menuitem"
                  href={`api/conversations/${current.id}/export?format=md`}
                  download
                  onClick={close}
                >
                  Export Markdown
                </a>
                <a
                  role="menuitem"
                  href={`api/conversations/${current.id}/export?format=json`}
                  download
                  onClick={close}
                >
                  Export JSON
                </a>
                <MenuItem close={close} class="chat-menu-danger" onPick={() => setConfirming(true)}>
                  Delete
                </MenuItem>
              </>
            )}
          </ActionMenu>
        ) : null}
      </div>
      <ModelPicker />
      <SystemPrompt />
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
