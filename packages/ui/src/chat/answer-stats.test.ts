import { describe, expect, it } from 'vitest'
import { answerStats, formatAnswerStats } from './answer-stats'

describe('answerStats', () => {
  it("takes the engine's own speed when the stream reports timings", () => {
    const s = answerStats({
      startedAt: 1000,
      firstTokenAt: 1250,
      endedAt: 3000,
      usage: { completion_tokens: 10 },
      timings: { predicted_per_second: 55.5 },
    })
    expect(s).toEqual({ ttftMs: 250, tokensPerSecond: 55.5, tokens: 10 })
    expect(formatAnswerStats(s)).toBe('55.5 tokens/s · 250 ms to first token · 10 tokens')
  })

  it('measures the tokens after the first over the time after the first without timings', () => {
    const s = answerStats({
      startedAt: 0,
      firstTokenAt: 1500,
      endedAt: 3500,
      usage: { completion_tokens: 21 },
    })
    expect(s.tokensPerSecond).toBe(10)
    expect(formatAnswerStats(s)).toBe('10.0 tokens/s · 1.50 s to first token · 21 tokens')
  })

  it('says "—" for what a stopped stream never reported', () => {
    const s = answerStats({ startedAt: 0, firstTokenAt: null, endedAt: 10 })
    expect(s).toEqual({ ttftMs: null, tokensPerSecond: null, tokens: null })
    expect(formatAnswerStats(s)).toBe('— tokens/s · — to first token')
  })
})
