/**
 * The client's name for the model in the answer. A request for a preset's alias or variant runs on
 * an engine that calls itself by its load name (llama-server answers with its `--alias`): the answer's
 * `model` is set back to the name the client sent, as a request for a ref gets that ref. Fields: the
 * top-level `model` (chat, completions, Messages and Responses JSON, chat stream chunks), the
 * Responses stream's `response.model` and the Messages stream's `message.model`.
 *
 * Only requests whose name differs from the load name get this fix (`namedAnswerFix`); it composes
 * with the surface's own fix (`answer-fix.ts`).
 */
import { isJsonObject } from '@svc/core'
import type { AnswerFix, FixedEvent } from './answer-fix-types'

type Body = Record<string, unknown>

function rename(body: Body, name: string): void {
  if (typeof body.model === 'string') body.model = name
  for (const key of ['response', 'message']) {
    const inner = body[key]
    if (isJsonObject(inner) && typeof inner.model === 'string') inner.model = name
  }
}

/** A fix that answers with `asked` for a request whose model resolved to another load name. */
export function namedAnswerFix(
  asked: string | undefined,
  loadName: string | undefined,
): AnswerFix | undefined {
  if (asked === undefined || loadName === undefined || asked === loadName) return undefined
  return {
    json(body) {
      rename(body, asked)
      return body
    },
    event(event: FixedEvent) {
      rename(event.data, asked)
      return [event]
    },
  }
}

/** `first`, then `second`, on every answer and event; either may be absent. */
export function bothFixes(
  first: AnswerFix | undefined,
  second: AnswerFix | undefined,
): AnswerFix | undefined {
  if (!first || !second) return first ?? second
  return {
    json: (body) => second.json(first.json(body)),
    event: (event) => first.event(event).flatMap((e) => second.event(e)),
  }
}
