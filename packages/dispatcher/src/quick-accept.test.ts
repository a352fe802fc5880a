import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { parseJsonBody } from './body'
import { acceptsChat } from './quick-accept'
import { ChatCompletionSchema } from './schemas'

// A valid body, then sometimes one field replaced by a value on or over the schema's line (or of another
// type): random bodies cross the line field by field.
const anything = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
)
const part = fc.dictionary(fc.string({ maxLength: 4 }), anything, { maxKeys: 2 })
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool'), fc.string({ minLength: 1 })),
    content: fc.oneof(fc.string(), fc.constant(null), fc.array(part, { maxLength: 3 })),
    name: fc.string(),
  },
  { requiredKeys: ['role'] },
)
const valid = {
  model: fc.string({ minLength: 1, maxLength: 256 }),
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  stream: fc.oneof(fc.boolean(), fc.constant(null)),
  max_tokens: fc.integer({ min: 1, max: 100_000 }),
  max_completion_tokens: fc.integer({ min: 1, max: 100_000 }),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  top_p: fc.double({ min: 0, max: 1, noNaN: true }),
  n: fc.integer({ min: 1, max: 128 }),
  stop: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })),
  tools: fc.array(fc.record({ type: fc.constantFrom('function', '') }), { maxLength: 2 }),
  seed: anything,
}
const edge = {
  model: fc.constantFrom('', 'm'.repeat(256), 'm'.repeat(257), 5, null),
  messages: fc.constantFrom(
    [],
    [{}],
    [{ role: '' }],
    [{ role: 5 }],
    [{ role: 'user', content: 5 }],
    [{ role: 'user', content: [1] }],
    [{ role: 'user', content: [null] }],
    [{ role: 'user', content: [[]] }],
    [['user']],
    ['hi'],
    [null],
    { role: 'user' },
    'hi',
  ),
  stream: fc.constantFrom('true', 1, 0),
  max_tokens: fc.constantFrom(0, -1, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, '8'),
  max_completion_tokens: fc.constantFrom(0, 2.5, '8', 1),
  temperature: fc.constantFrom(-0.01, 2, 2.01, '1', 0),
  top_p: fc.constantFrom(-0.01, 1, 1.01, '1', 0),
  n: fc.constantFrom(0, 1, 128, 129, 1.5, '2'),
  stop: fc.constantFrom([1], ['a', null], 5, [], ''),
  tools: fc.constantFrom([{}], [{ type: 1 }], [null], [[]], 'x', {}, []),
  seed: anything,
}
type Field = keyof typeof valid
const fields = Object.keys(valid) as Field[]
const body = fc
  .tuple(
    fc.record(valid, { requiredKeys: ['model', 'messages'] }),
    fc.option(fc.constantFrom(...fields).chain((f) => edge[f].map((value) => [f, value] as const))),
  )
  .map(([b, change]) => (change ? { ...b, [change[0]]: change[1] } : b))
/**
 * valibot's object schemas take an array too (an array is an object); acceptsChat does not, which is
 * stricter, so the schema decides those.
 */
function arraysAsObjects(b: Record<string, unknown>): boolean {
  const items = (x: unknown) => (Array.isArray(x) ? (x as unknown[]) : [])
  return (
    items(b.messages).some(
      (m) => Array.isArray(m) || items((m as { content?: unknown } | null)?.content).some(Array.isArray),
    ) || items(b.tools).some(Array.isArray)
  )
}

/** What JSON.parse can give: a body as it arrives. */
const asParsed = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>

describe('acceptsChat: the chat schema without its copies', () => {
  it('accepts a body only when the schema accepts it, and then the schema would return it unchanged', () => {
    fc.assert(
      fc.property(body, (generated) => {
        const b = asParsed(generated)
        if (!acceptsChat(b)) return
        const result = v.safeParse(ChatCompletionSchema, b)
        expect(result.success).toBe(true)
        expect(result.output).toStrictEqual(b)
      }),
      { numRuns: 3000 },
    )
  })

  it('takes every body the schema takes but an array where an object goes (the common body never pays for the schema)', () => {
    fc.assert(
      fc.property(body, (generated) => {
        const b = asParsed(generated)
        if (!arraysAsObjects(b) && v.safeParse(ChatCompletionSchema, b).success)
          expect(acceptsChat(b)).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('leaves the refusal to the schema: a bad message still names its field', () => {
    const raw = Buffer.from('{"model":"m","messages":[{"role":"user","content":"hi"},{"content":"no role"}]}')
    expect(() => parseJsonBody(raw, 'application/json', ChatCompletionSchema, acceptsChat)).toThrow(
      expect.objectContaining({ code: 'request.invalid', param: 'messages.1.role' }),
    )
  })
})
