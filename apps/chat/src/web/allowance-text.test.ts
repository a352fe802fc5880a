import { describe, expect, it } from 'vitest'
import { allowanceText } from './allowance-text'

describe('allowanceText', () => {
  it('says what is left of each limit, the day first', () => {
    expect(
      allowanceText({
        requests: { limit: 5, remaining: 4, reset: '59s' },
        tokensDay: { limit: 200000, remaining: 12345, reset: '3h2m0s' },
      }),
    ).toBe('12,345 of 200,000 tokens left today (resets in 3h2m0s) · 4 of 5 requests left this minute')
  })

  it('says nothing for a person without a quota', () => {
    expect(allowanceText(null)).toBeNull()
    expect(allowanceText({})).toBeNull()
  })
})
