/**
 * Anthropic Messages answers, held to the spec where llama-server is wrong:
 *
 * - "`stop_sequence`: one of your provided custom `stop_sequences` was generated" (`stop_reason`).
 *   The engine answers `end_turn` with `stop_sequence` set to the matched string; svc turns that
 *   into `stop_reason: "stop_sequence"`, in the JSON answer and in the stream's `message_delta`.
 * - A stream's `message_delta` usage is cumulative (`MessageDeltaUsage`: "the cumulative number of
 *   input tokens which were used"); the engine puts only `output_tokens` there. svc adds the input
 *   counts `message_start` gave, so the last event carries the whole usage (what clients and svc's
 *   own token count read at the end of a stream).
 *
 * Streams get a fix always, JSON answers only with `stop_sequences`.
 */
import { isJsonObject } from '@svc/core'
import type { AnswerFix, FixedEvent } from './answer-fix-types'

type Body = Record<string, unknown>

/** The input counts of `message_start` that a cumulative `message_delta` usage repeats. */
const INPUT_COUNTS = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const

export function messagesFix(request: Body): AnswerFix | undefined {
  const stops = request.stop_sequences
  const asked = Array.isArray(stops)
    ? new Set(stops.filter((s): s is string => typeof s === 'string'))
    : undefined
  if (request.stream !== true && !asked?.size) return undefined
  const stopped = (delta: Body) => {
    if (
      typeof delta.stop_sequence === 'string' &&
      asked?.has(delta.stop_sequence) &&
      delta.stop_reason !== 'stop_sequence'
    ) {
      delta.stop_reason = 'stop_sequence'
    }
  }
  let started: Body | undefined
  return {
    json(body) {
      stopped(body)
      return body
    },
    event(event: FixedEvent) {
      const { data } = event
      if (data.type === 'message_start' && isJsonObject(data.message) && isJsonObject(data.message.usage)) {
        started = data.message.usage
      } else if (data.type === 'message_delta') {
        if (isJsonObject(data.delta)) stopped(data.delta)
        if (started && isJsonObject(data.usage)) {
          for (const key of INPUT_COUNTS)
            if (data.usage[key] === undefined && started[key] !== undefined) data.usage[key] = started[key]
        }
      }
      return [event]
    },
  }
}
