import { describe, expect, it } from 'vitest'
import { createHotMetrics } from './hot-metrics'

describe('hot metrics', () => {
  it('adds to the same series by label values or through a series looked up once', () => {
    const hot = createHotMetrics()
    const used = hot.counter('svc_token_tokens_total', 'Tokens.', ['token', 'kind'])
    const prompt = used.at(['abc', 'prompt'])
    prompt.add(5)
    used.add(['abc', 'prompt'], 2)
    prompt.add()
    used.add(['abc', 'completion'], 7)
    const text = hot.render()
    expect(text).toContain('svc_token_tokens_total{token="abc",kind="prompt"} 8')
    expect(text).toContain('svc_token_tokens_total{token="abc",kind="completion"} 7')
    expect(text.match(/kind="prompt"/g)).toHaveLength(1)
  })
})
