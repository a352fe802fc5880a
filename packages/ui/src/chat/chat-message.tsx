import { Markdown } from '../markdown/markdown'
import { type AnswerStats, formatAnswerStats } from './answer-stats'
import type { ChatContentPart, ChatMessage } from './chat-types'

/** Text of a message's content (attachments are shown apart). */
export function messageText(content: ChatMessage['content']): string {
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : '')).join('')
}

const ROLE_NAMES = { user: 'You', assistant: 'Assistant', system: 'System' } as const

/**
 * One message of a conversation: who said it, the reasoning folded away, the text (an answer as
 * markdown), its image attachments, and under an answer its figures (tokens/s, time to first token).
 */
export function ChatMessageItem({ message: m, stats }: { message: ChatMessage; stats?: AnswerStats }) {
  const images =
    typeof m.content === 'string'
      ? []
      : m.content.filter((p): p is Extract<ChatContentPart, { type: 'image_url' }> => p.type === 'image_url')
  return (
    <li class="svc-chat-message" data-role={m.role}>
      <span class="svc-chat-role">{ROLE_NAMES[m.role]}</span>
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
      {images.map((p, j) => (
        <img key={j} class="svc-chat-image" src={p.image_url.url} alt="Attachment" />
      ))}
      {stats ? <p class="svc-chat-stats">{formatAnswerStats(stats)}</p> : null}
    </li>
  )
}
