import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { spliceModel } from './model-splice'

const spliced = (text: string, model: string) => spliceModel(Buffer.from(text), model)?.toString('utf8')

// Other fields of any JSON (strings holding quotes, backslashes, `"model":`, non-ASCII; nested
// objects with a `model` of their own), laid out compact or indented.
const others = fc.dictionary(
  fc.string().filter((k) => k !== 'model' && k !== '__proto__'),
  fc.oneof(
    fc.jsonValue(),
    fc.constantFrom('"model":"x"', 'a\\"b', '{"model":1}', 'é ✓ 🙂'),
    fc.record({ model: fc.string() }),
  ),
  { maxKeys: 5 },
)

describe('spliceModel: another top-level model, the other bytes as they came', () => {
  it('gives what serialising the parsed body with the new model gives, for any body', () => {
    fc.assert(
      fc.property(
        others,
        fc.string(),
        fc.string(),
        fc.nat(2),
        fc.nat(5),
        (rest, before, after, indent, at) => {
          const keys = Object.entries(rest)
          keys.splice(Math.min(at, keys.length), 0, ['model', before])
          const text = JSON.stringify(Object.fromEntries(keys), null, indent)
          const out = spliced(text, after)
          expect(out).toBeDefined()
          expect(JSON.parse(out!)).toStrictEqual({ ...JSON.parse(text), model: after })
          // Only the value's bytes changed (a body serialised again would lose its layout).
          const grown = Buffer.byteLength(out!) - Buffer.byteLength(text)
          expect(grown).toBe(
            Buffer.byteLength(JSON.stringify(after)) - Buffer.byteLength(JSON.stringify(before)),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('finds the key written with escapes, or with white space around its colon, as JSON.parse does', () => {
    expect(spliced('{"mod\\u0065l":"a","n":1}', 'b')).toBe('{"mod\\u0065l":"b","n":1}')
    expect(spliced('{ "model"\r\n\t :\n "a" }', 'b"c')).toBe('{ "model"\r\n\t :\n "b\\"c" }')
  })

  it.each([
    [
      'two top-level models (JSON.parse takes the last, an engine may take the first)',
      '{"model":"a","model":"b"}',
    ],
    ['two, one with escapes', '{"model":"a","mod\\u0065l":"b"}'],
    ['a model that is not a string', '{"model":5}'],
    ['no top-level model, only nested ones', '{"messages":[{"model":"a"}],"x":{"model":"b"}}'],
    ['a string that only looks like the key', '{"prompt":"\\"model\\":\\"a\\"","m":1}'],
    ['a body cut in a string', '{"model":"a'],
  ])('gives up on %s (the caller serialises the parsed body)', (_, text) => {
    expect(spliced(text, 'b')).toBeUndefined()
  })

  it('keeps multi-byte characters around the value intact', () => {
    expect(spliced('{"é":"✓","model":"a","🙂":"ü"}', 'b')).toBe('{"é":"✓","model":"b","🙂":"ü"}')
  })
})
