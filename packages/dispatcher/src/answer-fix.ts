/**
 * Holding an answer to its surface's spec whatever the engine wrote (docs/architecture.md,
 * "Surfaces"): a fix is chosen per request, before it is sent, only for requests whose answer may
 * be wrong: every `/v1/responses` answer (its stream lacks the indexes the clients accumulate by,
 * and a cut-short answer says `completed`), `/v1/messages` streams (their last usage lacks the
 * input counts) and `/v1/messages` with `stop_sequences` (a hit says `end_turn`). Every other request gets none, and its answer is relayed byte for byte as before.
 */
import type { Endpoint } from '@svc/core'
import type { AnswerFix } from './answer-fix-types'
import { messagesFix } from './messages-fix'
import { responsesFix } from './responses-fix'

export type { AnswerFix, FixedEvent } from './answer-fix-types'

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
