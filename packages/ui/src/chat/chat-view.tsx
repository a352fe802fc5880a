import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { FileButton } from '../file-button'
import { Markdown } from '../markdown/markdown'
import { ChatInput } from './chat-input'
import { type ChatDelta, streamChat } from './stream-chat'

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string | ChatContentPart[]
  reasoning?: string
}

export interface ChatViewProps {
  /** The chat completions endpoint, e.g. `/v1/chat/completions`. */
  url: string
  /** Sent as `model`; empty disables sending. */
  model: string
  /** Extra request headers, read per request (e.g. `Authorization`). */
  headers?: () => Record<string, string>
  /** Extra body fields (`max_tokens`, `temperature`, …). */
  extraBody?: Record<string, unknown>
  initialMessages?: ChatMessage[]
  /** Offer image attachments (for models with vision). */
  allowImages?: boolean
  /** After each answer completes or is stopped, with the whole conversation. */
  onFinish?: (messages: ChatMessage[]) => void
  /** An error answer or a broken stream (also shown inline). */
  onError?: (message: string) => void
  /** Streaming status changes (`true` while an answer streams). */
  onStreamingChange?: (streaming: boolean) => void
}

/** Text of a message's content (attachments are shown apart). */
export function messageText(content: ChatMessage['content']): string {
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

/**
 * A streaming chat: messages (assistant answers as markdown, reasoning folded away), a message box,
 * Send and Stop. The answer streams from a `fetch` POST; Stop aborts the request, which makes svc
 * stop the upstream's generation. Screen updates are batched per animation frame.
 *
 * The conversation is a pane of fixed height that scrolls (styles/chat.css), so the message box and
 * Stop stay where they are while an answer grows: a button that moves with every streamed line is
 * hard to hit. The pane follows the answer while the reader is at its end and stays put once they
 * scroll up to read.
 */
export function ChatView(props: ChatViewProps) {
  const [messages, setMessages] = useState<ChatMessage[]>(props.initialMessages ?? [])
  const [draft, setDraft] = useState('')
  const [images, setImages] = useState<string[]>([])
  const [error, setError] = useState<string | null>(null)
  const [streaming, setStreaming] = useState(false)
  const controller = useRef<AbortController | null>(null)
  const pane = useRef<HTMLOListElement>(null)
  const follow = useRef(true)
  useLayoutEffect(() => {
    if (follow.current && pane.current) pane.current.scrollTop = pane.current.scrollHeight
  }, [messages])
  useEffect(() => () => controller.current?.abort(), [])
  useEffect(() => props.onStreamingChange?.(streaming), [streaming])

  async function send() {
    const text = draft.trim()
    if ((!text && images.length === 0) || streaming || !props.model) return
    const content: ChatMessage['content'] =
      images.length === 0
        ? text
        : [
            { type: 'text', text },
            ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
          ]
    const history = [...messages, { role: 'user' as const, content }]
    const answer: ChatMessage = { role: 'assistant', content: '' }
    setMessages([...history, answer])
    setDraft('')
    setImages([])
    setError(null)
    setStreaming(true)
    const ac = new AbortController()
    controller.current = ac
    let pending: ChatDelta[] = []
    let frame: number | null = null
    let content_ = ''
    let reasoning = ''
    const flush = () => {
      frame = null
      for (const d of pending) {
        content_ += d.content ?? ''
        reasoning += d.reasoning ?? ''
      }
      pending = []
      const updated: ChatMessage = {
        role: 'assistant',
        content: content_,
        ...(reasoning ? { reasoning } : {}),
      }
      setMessages([...history, updated])
      return updated
    }
    const schedule = () => {
      frame ??= (globalThis.requestAnimationFrame ?? ((f: () => void) => setTimeout(f, 16)))(flush) as number
    }
    try {
      for await (const delta of streamChat({
        url: props.url,
        body: {
          model: props.model,
          messages: history.map(({ role, content: c }) => ({ role, content: c })),
          ...props.extraBody,
        },
        headers: props.headers?.() ?? {},
        signal: ac.signal,
      })) {
        pending.push(delta)
        schedule()
      }
    } catch (e) {
      if (!ac.signal.aborted) {
        const message = e instanceof Error ? e.message : String(e)
        setError(message)
        props.onError?.(message)
      }
    } finally {
      if (frame !== null) (globalThis.cancelAnimationFrame ?? clearTimeout)(frame)
      const last = flush()
      controller.current = null
      setStreaming(false)
      props.onFinish?.([...history, last])
    }
  }

  return (
    <section class="svc-chat" aria-label="Chat">
      <ol
        ref={pane}
        class="svc-chat-messages"
        aria-label="Conversation"
        onScroll={(e) => {
          const el = e.currentTarget
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24
        }}
      >
        {messages.map((m, i) => (
          <li key={i} class="svc-chat-message" data-role={m.role}>
            <span class="svc-chat-role">
              {m.role === 'user' ? 'You' : m.role === 'assistant' ? 'Assistant' : 'System'}
            </span>
            {m.reasoning ? (
              <details class="svc-chat-reasoning">
                <summary>Reasoning</summary>
                <p>{m.reasoning}</p>
              </details>
            ) : null}
            {m.role === 'assistant' ? (
              <Markdown text={messageText(m.content)} />
            ) : (
              <p class="svc-chat-text">{messageText(m.content)}</p>
            )}
            {typeof m.content !== 'string'
              ? m.content
                  .filter((p) => p.type === 'image_url')
                  .map((p, j) =>
                    p.type === 'image_url' ? (
                      <img key={j} class="svc-chat-image" src={p.image_url.url} alt="Attachment" />
                    ) : null,
                  )
              : null}
          </li>
        ))}
      </ol>
      {error ? (
        <p class="svc-chat-error" role="alert">
          {error}
        </p>
      ) : null}
      <form
        class="svc-chat-form"
        onSubmit={(event) => {
          event.preventDefault()
          void send()
        }}
      >
        <ChatInput
          label="Message"
          value={draft}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
          onInput={setDraft}
          onSend={() => void send()}
        />
        <div class="svc-chat-actions">
          {props.allowImages ? (
            <FileButton
              accept="image/*"
              multiple
              onFiles={async (files) => setImages(await Promise.all(files.map(readAsDataUrl)))}
            >
              Attach image{images.length ? ` (${images.length})` : ''}
            </FileButton>
          ) : null}
          {streaming ? (
            <button
              type="button"
              class="svc-button svc-button-danger"
              onClick={() => controller.current?.abort()}
            >
              Stop
            </button>
          ) : (
            <button
              type="submit"
              class="svc-button svc-button-primary"
              disabled={!props.model || (!draft.trim() && images.length === 0)}
            >
              Send
            </button>
          )}
        </div>
      </form>
    </section>
  )
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })
}
