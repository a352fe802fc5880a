import { describe, expect, it } from 'vitest'
import { parseKeepAlive } from './keep-alive'

describe('keep_alive as Ollama reads it', () => {
  it.each([
    [300, 300_000],
    [0, 0],
    [1.5, 1_500],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['0', 0],
    ['0s', 0],
    ['3600', 3_600_000],
    [' 10s ', 10_000],
    ['1.5h', 5_400_000],
  ])('%j is %d ms', (value, ms) => {
    expect(parseKeepAlive(value)).toBe(ms)
  })

  it.each([-1, '-1m', '-1', -0.5, '900h', 1e12])('%j keeps the model loaded', (value) => {
    expect(parseKeepAlive(value)).toBe(Number.POSITIVE_INFINITY)
  })

  it('is absent for undefined and null', () => {
    expect(parseKeepAlive(undefined)).toBeUndefined()
    expect(parseKeepAlive(null)).toBeUndefined()
  })

  it.each(['soon', '5 minutes', '1d', '', 'm5', true, {}, [], Number.NaN])(
    'refuses %j with a 400 naming keep_alive',
    (value) => {
      expect(() => parseKeepAlive(value)).toThrow(
        expect.objectContaining({ code: 'request.invalid', param: 'keep_alive' }),
      )
    },
  )
})
