import type { Message } from '../store/types'
import type { SpokenTurn } from './turn-recorder'

/**
 * What the chat app's checks grant one voice session (built by `GET api/realtime`, run by the relay):
 * the person, the conversation it speaks into and what svc must be told first.
 */
export interface VoiceGrant {
  /** The chat model that answers (`model` of svc's `/v1/realtime`). */
  model: string
  /** The person the chat app's token acts for (`X-Svc-User`), when it has a token and a proxy identity. */
  person: string | undefined
  /** Client events sent to svc before any of the browser's: the system prompt and the conversation so far. */
  context: readonly object[]
  /** Aborted by the conversation's Stop and by the chat server's shutdown: the relay then closes both sides. */
  signal: AbortSignal
  /** Saves a finished spoken turn in the conversation; answers the saved messages, or undefined (nothing said). */
  record(turn: SpokenTurn): { user: Message; assistant: Message } | undefined
  /** Releases the conversation (another answer may start). Idempotent. */
  end(): void
}

/** Where the relay hands the route its way to accept: a key of the app's `env` (Hono's `c.env`). */
export const VOICE_UPGRADE = 'svcVoiceUpgrade'

/** Given to the app only for a WebSocket upgrade; a plain request has none (the route then refuses). */
export interface VoiceUpgrade {
  accept(grant: VoiceGrant): void
}
