import { useEffect, useRef } from 'preact/hooks'
import { useChat } from '../store'
import { MessageItem } from './message-item'

/**
 * The open conversation's messages, scrolling on their own under the header while the message box
 * stays put. A conversation opens at its latest message; the list follows the end while an answer
 * streams, unless the person has scrolled up to read.
 */
export function MessageList() {
  const current = useChat((s) => s.current)
  const streaming = useChat((s) => s.streaming)
  const list = useRef<HTMLOListElement>(null)
  const pinned = useRef(true)
  const id = current?.id ?? null
  // Another conversation (or a new chat): open at its end, whatever was read before.
  useEffect(() => {
    pinned.current = true
  }, [id])
  useEffect(() => {
    const el = list.current
    if (el && pinned.current) el.scrollTop = el.scrollHeight
  })
  if (!current || current.messages.length === 0) {
    return (
      <div class="chat-empty">
        <p>Ask anything. Your conversations are kept on the server, only for you.</p>
      </div>
    )
  }
  const messages = current.messages
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant')
  const busy = streaming !== null
  return (
    <ol
      ref={list}
      class="svc-chat-messages chat-messages"
      aria-label="Messages"
      aria-busy={busy}
      onScroll={(event) => {
        const el = event.currentTarget
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
      }}
    >
      {messages.map((m, i) => (
        <MessageItem key={m.id} message={m} isLastAnswer={i === lastAssistant} busy={busy} />
      ))}
    </ol>
  )
}
