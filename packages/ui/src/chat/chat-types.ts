export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string | ChatContentPart[]
  reasoning?: string
}

/** Why an answer failed: the server's error body (`code`, `status`) or a broken stream (both null). */
export interface ChatFailure {
  message: string
  status: number | null
  code: string | null
}
