/**
 * Anthropic Messages answers, held to the spec: "`stop_sequence`: one of your provided custom
 * `stop_sequences` was generated" (Messages API, `stop_reason`). llama-server answers `end_turn`
 * with `stop_sequence` set to the matched string; svc turns that into `stop_reason:
 * "stop_sequence"`, in the JSON answer and in the stream's `message_delta`. Only requests with
 * `stop_sequences` get this fix.
 */
import type { AnswerFix, FixedEvent } from './answer-fix-types'

type Body = Record<string, unknown>

export function messagesFix(request: Body): AnswerFix | undefined {
  const stops = request.stop_sequences
  if (!Array.isArray(stops) || stops.length === 0) return undefined
  const asked = new Set(stops.filter((s): s is string => typeof s === 'string'))
  const fix = (delta: Body) => {
    if (
      typeof delta.stop_sequence === 'string' &&
      asked.has(delta.stop_sequence) &&
      delta.stop_reason !== 'stop_sequence'
    ) {
      delta.stop_reason = 'stop_sequence'
    }
  }
  return {
    json(body) {
      fix(body)
      return body
    },
    event(event: FixedEvent) {
      const { data } = event
      if (data.type === 'message_delta' && isObject(data.delta)) fix(data.delta)
      return [event]
    },
  }
}

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
