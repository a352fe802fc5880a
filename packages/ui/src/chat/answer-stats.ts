import type { ChatDelta } from './stream-chat'

/** How one answer went, as a person reads it under the answer. */
export interface AnswerStats {
  /** From sending to the first streamed token (ms, measured in the browser); null when none came. */
  ttftMs: number | null
  /** Generation speed (tokens per second): the engine's own figure when it reports `timings`, else from `usage`. */
  tokensPerSecond: number | null
  /** Completion tokens, when the stream reported them. */
  tokens: number | null
}

export interface AnswerClock {
  /** Epoch ms the request was sent. */
  startedAt: number
  /** Epoch ms the first token (content or reasoning) arrived; null when none did. */
  firstTokenAt: number | null
  /** Epoch ms the stream ended. */
  endedAt: number
  usage?: ChatDelta['usage']
  timings?: ChatDelta['timings']
}

/**
 * The figures of one answer (pure). Tokens/s is llama.cpp's `timings.predicted_per_second` when the
 * stream has it; else the completion tokens after the first, over the time after the first token;
 * null when neither is known (a stream stopped before its end reports no counts).
 */
export function answerStats(clock: AnswerClock): AnswerStats {
  const tokens = clock.usage?.completion_tokens ?? clock.timings?.predicted_n ?? null
  const ttftMs = clock.firstTokenAt === null ? null : Math.max(0, clock.firstTokenAt - clock.startedAt)
  const reported = clock.timings?.predicted_per_second
  let tokensPerSecond: number | null = null
  if (typeof reported === 'number' && Number.isFinite(reported) && reported > 0) tokensPerSecond = reported
  else if (tokens !== null && tokens > 1 && clock.firstTokenAt !== null) {
    const seconds = (clock.endedAt - clock.firstTokenAt) / 1000
    if (seconds > 0) tokensPerSecond = (tokens - 1) / seconds
  }
  return { ttftMs, tokensPerSecond, tokens }
}

/** "42.1 tokens/s · 85 ms to first token" ("—" for what is not known). */
export function formatAnswerStats(stats: AnswerStats): string {
  const speed = stats.tokensPerSecond === null ? '—' : stats.tokensPerSecond.toFixed(1)
  const first =
    stats.ttftMs === null
      ? '—'
      : stats.ttftMs < 1000
        ? `${Math.round(stats.ttftMs)} ms`
        : `${(stats.ttftMs / 1000).toFixed(2)} s`
  const count = stats.tokens === null ? '' : ` · ${stats.tokens} tokens`
  return `${speed} tokens/s · ${first} to first token${count}`
}
