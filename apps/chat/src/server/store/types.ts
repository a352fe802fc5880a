/** The chat store's records as the server and the browser see them (plain JSON). */

export const MESSAGE_STATUSES = ['complete', 'streaming', 'stopped', 'interrupted', 'error'] as const
/**
 * `streaming`: being written now. `stopped`: the person pressed Stop (the partial answer is kept).
 * `interrupted`: the chat server died while writing it (found at the next start). `error`: the API
 * or the model failed; `error` says how.
 */
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]
export type MessageRole = 'user' | 'assistant'
/** `text`: a chat turn. `image`: an image-generation prompt (user) and its results (assistant). */
export type MessageKind = 'text' | 'image'

/** A stored file attached to a message: an uploaded image or a generated one. */
export interface Attachment {
  /** The file id; the browser fetches it at `api/files/<id>`. */
  file: string
  mime: string
}

export interface Message {
  id: string
  seq: number
  role: MessageRole
  kind: MessageKind
  content: string
  reasoning: string
  attachments: Attachment[]
  status: MessageStatus
  error: string | null
  model: string | null
  createdAt: number
}

export interface ConversationSummary {
  id: string
  title: string
  model: string | null
  system: string
  createdAt: number
  updatedAt: number
}

export interface Conversation extends ConversationSummary {
  messages: Message[]
}

export interface User {
  id: number
  identity: string
}
