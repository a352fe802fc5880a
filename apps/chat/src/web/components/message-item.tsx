import { copyText, Markdown, useToasts } from '@svc/ui'
import { useState } from 'preact/hooks'
import type { Message } from '../../server/store/types'
import { edit, regenerate } from '../actions'
import { pageText } from '../page-text'
import { usable } from '../send-block'
import { useChat } from '../store'
import { ActionMenu, MenuItem } from './action-menu'
import { useReadAloud } from './read-aloud'

const STATUS_NOTE: Record<Message['status'], string | null> = {
  complete: null,
  streaming: null,
  stopped: 'Stopped.',
  interrupted: 'Interrupted: the chat server stopped while writing this answer.',
  error: 'Failed.',
}

export interface MessageItemProps {
  message: Message
  /** The last answer of the conversation: it can be regenerated. */
  isLastAnswer: boolean
  /** An answer is being written: no edits or regenerations meanwhile. */
  busy: boolean
}

/**
 * One message: text (answers as markdown), reasoning folded, images, its state, and its actions (Copy,
 * Edit, Regenerate, Read aloud) in a small "⋯" menu beside its name instead of a row under every message.
 */
export function MessageItem({ message: m, isLastAnswer, busy }: MessageItemProps) {
  const toasts = useToasts()
  const [editing, setEditing] = useState(false)
  const [copied, setCopied] = useState(false)
  const note = STATUS_NOTE[m.status]
  const canSpeak = useChat((s) => usable(s.models?.speech))
  const aloud = useReadAloud(m.content, (message) => toasts.show('error', message))
  const text = m.kind === 'text'
  const actions = {
    copy: text && m.content !== '',
    edit: m.role === 'user' && text,
    regenerate: m.role === 'assistant' && text && isLastAnswer,
    speak: m.role === 'assistant' && text && m.content !== '' && canSpeak,
  }
  const hasActions = !editing && m.status !== 'streaming' && Object.values(actions).some(Boolean)
  return (
    <li class="svc-chat-message chat-message" data-role={m.role} data-status={m.status}>
      <div class="chat-message-head">
        <span class="svc-chat-role">
          {m.role === 'user' ? 'You' : 'Assistant'}
          {m.role === 'assistant' && m.model ? <span class="chat-muted"> · {m.model}</span> : null}
        </span>
        {copied ? (
          <span class="chat-muted" role="status">
            Copied
          </span>
        ) : null}
        {hasActions ? (
          <ActionMenu label="Message actions" class="chat-message-menu">
            {(close) => (
              <>
                {actions.copy ? (
                  <MenuItem
                    close={close}
                    onPick={async () => {
                      setCopied(await copyText(m.content))
                      setTimeout(() => setCopied(false), 1500)
                    }}
                  >
                    Copy
                  </MenuItem>
                ) : null}
                {actions.edit ? (
                  <MenuItem close={close} disabled={busy} onPick={() => setEditing(true)}>
                    Edit
                  </MenuItem>
                ) : null}
                {actions.regenerate ? (
                  <MenuItem close={close} disabled={busy} onPick={regenerate}>
                    Regenerate
                  </MenuItem>
                ) : null}
                {actions.speak ? (
                  <MenuItem close={close} onPick={aloud.start}>
                    Read aloud
                  </MenuItem>
                ) : null}
              </>
            )}
          </ActionMenu>
        ) : null}
        {aloud.loading ? (
          <span class="chat-muted" role="status">
            Preparing audio…
          </span>
        ) : null}
      </div>
      {m.reasoning ? (
        <details class="svc-chat-reasoning">
          <summary>{m.status === 'streaming' && !m.content ? 'Reasoning…' : 'Reasoning'}</summary>
          <p>{m.reasoning}</p>
        </details>
      ) : null}
      {editing ? (
        <EditBox
          message={m}
          onDone={(content) => {
            setEditing(false)
            if (content !== null) void edit(m, content)
          }}
        />
      ) : m.role === 'assistant' && m.kind === 'text' ? (
        m.content || m.status !== 'streaming' ? (
          <Markdown text={m.content} />
        ) : (
          <p class="chat-muted" aria-live="polite">
            Thinking…
          </p>
        )
      ) : m.kind === 'image' && m.role === 'user' ? (
        <p class="svc-chat-text">
          <span class="chat-muted">Image: </span>
          {m.content}
        </p>
      ) : (
        <p class="svc-chat-text">{m.content}</p>
      )}
      {m.kind === 'image' && m.role === 'assistant' && m.status === 'streaming' ? (
        <p class="chat-muted">Generating…</p>
      ) : null}
      {m.attachments.length > 0 ? (
        <div class="chat-images">
          {m.attachments.map((a) => (
            <a key={a.file} href={`api/files/${a.file}`} target="_blank" rel="noreferrer">
              <img
                class="svc-chat-image"
                src={`api/files/${a.file}`}
                alt={m.role === 'user' ? 'Attached image' : 'Generated image'}
              />
            </a>
          ))}
        </div>
      ) : null}
      {note ? (
        <p class="chat-status" role={m.status === 'error' ? 'alert' : undefined}>
          {note}
          {m.error && m.status === 'error' ? ` ${pageText(m.error)}` : ''}
        </p>
      ) : null}
      {aloud.player}
    </li>
  )
}

function EditBox({ message, onDone }: { message: Message; onDone: (content: string | null) => void }) {
  const [draft, setDraft] = useState(message.content)
  return (
    <form
      class="chat-edit"
      onSubmit={(event) => {
        event.preventDefault()
        if (draft.trim()) onDone(draft)
      }}
    >
      <textarea
        aria-label="Edit message"
        rows={3}
        value={draft}
        autofocus
        onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone(null)
        }}
      />
      <div class="chat-message-actions">
        <button type="submit" class="svc-button svc-button-primary" disabled={!draft.trim()}>
          Save and send
        </button>
        <button type="button" class="svc-button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      <p class="chat-muted">Everything after this message is replaced by the new answer.</p>
    </form>
  )
}
