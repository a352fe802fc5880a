import { describe, expect, it } from 'vitest'
import { SendSchema } from './schemas'
import { parseWith } from './validate'

describe('chat body validation', () => {
  it('refuses 1 MB of bad attachments at the cost of parsing them, not one issue per element', () => {
    const text = `{"content":"hi","model":"m","attachments":[${'0,'.repeat(512 * 1024)}0]}`
    let parse = Number.POSITIVE_INFINITY
    let validate = Number.POSITIVE_INFINITY
    let param: unknown
    // Best of three each: the box may be busy, the best run is the honest cost.
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      const data: unknown = JSON.parse(text)
      const t1 = performance.now()
      try {
        parseWith(SendSchema, data)
      } catch (error) {
        param = (error as { param?: unknown }).param
      }
      const t2 = performance.now()
      parse = Math.min(parse, t1 - t0)
      validate = Math.min(validate, t2 - t1)
    }
    expect(param).toBe('attachments.0')
    // One issue object per element cost seconds and hundreds of MB here.
    expect(
      validate,
      `validation ${validate.toFixed(0)} ms vs JSON.parse ${parse.toFixed(0)} ms`,
    ).toBeLessThan(4 * parse + 50)
  })
})
