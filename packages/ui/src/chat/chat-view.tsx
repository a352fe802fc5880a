import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { FileButton } from '../file-button'
import { type AnswerStats, answerStats } from './answer-stats'
import { ChatInput } from './chat-input'
import { ChatMessageItem } from './chat-message'
import type { ChatFailure, ChatMessage } from './chat-types'
import { type ChatDelta, ChatStreamError, streamChat } from './stream-chat'

export * from './answer-stats'
export { messageText } from './chat-message'
export type * from './chat-types'

export interface ChatViewProps {
  /** The chat completions endpoint, e.g. `/v1/chat/completions`. */
  url: string
  /** Sent as `model`; empty disables sending. */
  model: string
  /** Extra request headers, read per request (e.g. `Authorization`). */
  headers?: () => Record<string, string>
  /** Extra body fields (`max_tokens`, `temperature`, …). */
  extraBody?: Record<string, unknown>
  /** A system prompt sent first with every request (not shown in the conversation); empty: none. */
  system?: string
  initialMessages?: ChatMessage[]
  /** Offer image attachments (for models with vision). */
  allowImages?: boolean
  /** After each answer completes or is stopped, with the whole conversation. */
  onFinish?: (messages: ChatMessage[]) => void
  /** An error answer or a broken stream (also shown inline). */
  onError?: (message: string) => void
  /**
   * What to show for a failed answer, in place of the bare message: the page's own words and its fix
   * (a Load button, a link to settings). `resend` asks again with the same conversation.
   */
  renderError?: (failure: ChatFailure, resend: () => void) => ComponentChildren
  /** Streaming status changes (`true` while an answer streams). */
  onStreamingChange?: (streaming: boolean) => void
}

/**
 * A streaming chat: messages (assistant answers as markdown, reasoning folded away, each answer's
 * tokens/s and time to first token under it), a message box, Send, Stop and Clear. The answer streams
 * from a `fetch` POST; Stop aborts the request, which makes svc stop the upstream's generation. Screen
 * updates are batched per animation frame. A failed answer leaves no empty bubble: the question stays,
 * the failure shows under the conversation (with `renderError`'s fix) and can be sent again.
 *
 * The conversation is a pane of fixed height that scrolls (styles/chat.css), so the message box and
 * Stop stay where they are while an answer grows: a button that moves with every streamed line is
 * hard to hit. The pane follows the answer while the reader is at its end and stays put once they
 * scroll up to read.
 */
export function ChatView(props: ChatViewProps) {
  const [messages, setMessages] = useState<ChatMessage[]>(props.initialMessages ?? [])
  const [stats, setStats] = useState<Record<number, AnswerStats>>({})
  const [draft, setDraft] = useState('')
  const [images, setImages] = useState<string[]>([])
  const [failure, setFailure] = useState<ChatFailure | null>(null)
  const [streaming, setStreaming] = useState(false)
  const controller = useRef<AbortController | null>(null)
  const shown = useRef(messages)
  shown.current = messages
  const pane = useRef<HTMLOListElement>(null)
  const follow = useRef(true)
  useLayoutEffect(() => {
    if (follow.current && pane.current) pane.current.scrollTop = pane.current.scrollHeight
  }, [messages])
  useEffect(() => () => controller.current?.abort(), [])
  useEffect(() => props.onStreamingChange?.(streaming), [streaming])

  function send() {
    const text = draft.trim()
    if ((!text && images.length === 0) || controller.current || !props.model) return
    const content: ChatMessage['content'] =
      images.length === 0
        ? text
        : [
            { type: 'text', text },
            ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
          ]
    setDraft('')
    setImages([])
    void ask([...shown.current, { role: 'user', content }])
  }

  /** Asks again with the conversation as it is (a partial answer to the last question dropped). */
  function resend() {
    const now = shown.current
    if (controller.current || now.length === 0) return
    void ask(now.at(-1)?.role === 'assistant' ? now.slice(0, -1) : now)
  }

  async function ask(history: ChatMessage[]) {
    setMessages([...history, { role: 'assistant', content: '' }])
    setFailure(null)
    setStreaming(true)
    const ac = new AbortController()
    controller.current = ac
    const clock = { startedAt: Date.now(), firstTokenAt: null as number | null }
    let pending: ChatDelta[] = []
    let frame: number | null = null
    let text = ''
    let reasoning = ''
    let usage: ChatDelta['usage']
    let timings: ChatDelta['timings']
    let failed: ChatFailure | null = null
    const flush = () => {
      frame = null
      for (const d of pending) {
        text += d.content ?? ''
        reasoning += d.reasoning ?? ''
      }
      pending = []
      const updated: ChatMessage = { role: 'assistant', content: text, ...(reasoning ? { reasoning } : {}) }
      setMessages([...history, updated])
      return updated
    }
    const schedule = () => {
      frame ??= (globalThis.requestAnimationFrame ?? ((f: () => void) => setTimeout(f, 16)))(flush) as number
    }
    const system = props.system?.trim()
    try {
      for await (const delta of streamChat({
        url: props.url,
        body: {
          model: props.model,
          messages: [
            ...(system ? [{ role: 'system', content: system }] : []),
            ...history.map(({ role, content: c }) => ({ role, content: c })),
          ],
          ...props.extraBody,
        },
        headers: props.headers?.() ?? {},
        signal: ac.signal,
      })) {
        if (clock.firstTokenAt === null && (delta.content || delta.reasoning)) clock.firstTokenAt = Date.now()
        usage = delta.usage ?? usage
        timings = delta.timings ?? timings
        pending.push(delta)
        schedule()
      }
    } catch (e) {
      if (!ac.signal.aborted) {
        failed =
          e instanceof ChatStreamError
            ? { message: e.message, status: e.status, code: e.code }
            : { message: e instanceof Error ? e.message : String(e), status: null, code: null }
        setFailure(failed)
        props.onError?.(failed.message)
      }
    } finally {
      if (frame !== null) (globalThis.cancelAnimationFrame ?? clearTimeout)(frame)
      const last = flush()
      controller.current = null
      setStreaming(false)
      if (failed && !text && !reasoning) {
        // No empty "Assistant" bubble: the question stays, the failure shows below with its fix.
        setMessages(history)
        props.onFinish?.(history)
      } else {
        const figures = answerStats({ ...clock, endedAt: Date.now(), usage, timings })
        setStats((s) => ({ ...s, [history.length]: figures }))
        props.onFinish?.([...history, last])
      }
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
          <ChatMessageItem key={i} message={m} stats={streaming ? undefined : stats[i]} />
        ))}
      </ol>
      {failure ? (
        <div class="svc-chat-error" role="alert">
          {props.renderError ? props.renderError(failure, resend) : failure.message}
        </div>
      ) : null}
      <form
        class="svc-chat-form"
        onSubmit={(event) => {
          event.preventDefault()
          send()
        }}
      >
        <ChatInput
          label="Message"
          value={draft}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
          onInput={setDraft}
          onSend={send}
        />
        <div class="svc-chat-actions">
          <button
            type="button"
            class="svc-button"
            disabled={streaming || (messages.length === 0 && !failure)}
            onClick={() => {
              setMessages([])
              setStats({})
              setFailure(null)
            }}
          >
            Clear
          </button>
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
