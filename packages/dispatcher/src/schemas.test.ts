import { describe, expect, it } from 'vitest'
import { parseJsonBody } from './body'
import { ChatCompletionSchema, CompletionSchema, EmbeddingSchema, RerankSchema } from './schemas'

/** `{"model":"nope","<field>":[0,0,…]}` of about `bytes` bytes: every element is wrong. */
function wrongElements(field: string, element: string, bytes: number): Buffer {
  const n = Math.floor(bytes / (element.length + 1))
  return Buffer.from(`{"model":"nope","query":"q","${field}":[${`${element},`.repeat(n)}${element}]}`)
}

/** Milliseconds `fn` takes, best of `runs` (the box may be busy; the best run is the honest cost). */
function best(fn: () => void, runs = 3): number {
  let min = Number.POSITIVE_INFINITY
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    fn()
    min = Math.min(min, performance.now() - t0)
  }
  return min
}

describe('inference body validation', () => {
  // Elements that are not objects: a body of more than 100 000 objects is refused before validation (json-depth).
  it.each([
    ['messages', '0', ChatCompletionSchema],
    ['prompt', 'true', CompletionSchema],
    ['input', 'true', EmbeddingSchema],
    ['documents', '0', RerankSchema],
  ] as const)(
    'refuses 1 MB of bad %s elements (%s) at the cost of parsing them, not one issue per element',
    (field, element, schema) => {
      const raw = wrongElements(field, element, 1024 * 1024)
      const text = raw.toString('utf8')
      const parse = best(() => JSON.parse(text))
      let param: unknown
      const validate = best(() => {
        try {
          parseJsonBody(raw, 'application/json', schema)
        } catch (error) {
          param = (error as { param?: unknown }).param
        }
      })
      expect(param).toMatch(new RegExp(`^${field}`))
      // One issue object per element made this ~100 times the cost of JSON.parse (seconds, hundreds of MB).
      expect(
        validate,
        `validation ${validate.toFixed(0)} ms vs JSON.parse ${parse.toFixed(0)} ms`,
      ).toBeLessThan(4 * parse + 50)
    },
  )
})
