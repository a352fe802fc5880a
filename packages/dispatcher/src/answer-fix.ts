/**
 * Holding an answer to its surface's spec whatever the engine wrote (docs/architecture.md,
 * "Surfaces"): a fix is chosen per request, before it is sent, only for requests whose answer may
 * be wrong: every `/v1/responses` answer (its stream lacks the indexes the clients accumulate by,
 * and a cut-short answer says `completed`), and `/v1/messages` with `stop_sequences` (a hit says
 * `end_turn`). Every other request gets none, and its answer is relayed byte for byte as before.
 */
import type { Endpoint } from '@svc/core'
import { messagesFix } from './messages-fix'
import { responsesFix } from './responses-fix'

/** One SSE event: its `event:` name (absent when the upstream wrote none) and its parsed JSON data. */
export interface FixedEvent {
  event?: string
  data: Record<string, unknown>
}

/** The correction of one request's answer (state is per request: one fix, one answer). */
export interface AnswerFix {
  /** A whole 2xx JSON answer, corrected (changed in place or replaced). */
  json(body: Record<string, unknown>): Record<string, unknown>
  /** One SSE event of a 2xx stream: the events to write in its place, in order (usually itself, corrected). */
  event(event: FixedEvent): FixedEvent[]
}

/** The fix for a slot's answer to `body` at `endpoint`, or undefined when it needs none. */
export function answerFixFor(
  endpoint: Endpoint,
  body: Record<string, unknown> | undefined,
): AnswerFix | undefined {
  if (!body) return undefined
  switch (endpoint) {
    case 'responses':
      return responsesFix(body)
    case 'messages':
      return messagesFix(body)
    default:
      return undefined
  }
}
