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
  // Where the list itself last scrolled to: the scroll event of its own move (which arrives a frame
  // later, perhaps after the content grew) must not count as the person scrolling up.
  const own = useRef(-1)
  const toEnd = (el: HTMLElement) => {
    el.scrollTop = el.scrollHeight
    own.current = el.scrollTop
  }
  const id = current?.id ?? null
  // Another conversation (or a new chat): open at its end, whatever was read before.
  useEffect(() => {
    pinned.current = true
  }, [id])
  // The list gets shorter when something appears under it (a notice above the box): keep the end in view.
  const shown = Boolean(current && current.messages.length > 0)
  useEffect(() => {
    const el = list.current
    if (!el) return
    const observer = new ResizeObserver(() => {
      if (pinned.current) toEnd(el)
    })
    observer.observe(el)
    return () => observer.disconnect()
  }, [id, shown])
  useEffect(() => {
    const el = list.current
    if (el && pinned.current) toEnd(el)
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
      // A picture that loads later makes the list taller: still at the end if it was there.
      onLoadCapture={(event) => {
        const el = event.currentTarget
        if (pinned.current) toEnd(el)
      }}
      onScroll={(event) => {
        const el = event.currentTarget
        if (el.scrollTop === own.current) return
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
      }}
    >
      {messages.map((m, i) => (
        <MessageItem key={m.id} message={m} isLastAnswer={i === lastAssistant} busy={busy} />
      ))}
    </ol>
  )
}
