import { describe, expect, it } from 'vitest'
import { numberLiteralsAt } from './json-literals'

const SEED = ['seed'] as const
const NESTED = ['extra_body', 'seed'] as const
const find = (text: string, maxLength = 21) => {
  const found = numberLiteralsAt(text, [SEED, NESTED], { maxLength })
  return { top: found.get(SEED), nested: found.get(NESTED) }
}

describe('numberLiteralsAt', () => {
  it('finds the literals at the wanted paths exactly as written', () => {
    const r = find('{"prompt":"x","seed":18446744073709551615,"extra_body":{"steps":4,"seed":-1.5e3}}')
    expect(r.top).toEqual({ text: '18446744073709551615', integer: true, truncated: false })
    expect(r.nested).toEqual({ text: '-1.5e3', integer: false, truncated: false })
  })

  it('ignores the same key elsewhere, in strings, in arrays, and non-number values', () => {
    const r = find(
      '{"p":"\\"seed\\":1","deep":{"extra_body":{"seed":2}},"list":[{"seed":3}],"extra_body":{"x":{"seed":4}},"seed":"5"}',
    )
    expect(r).toEqual({ top: undefined, nested: undefined })
  })

  it('keeps the last of a repeated key, as JSON.parse does, and reads escaped keys', () => {
    const r = find('{"seed":1,"seed":2,"\\u0065xtra_body":{"se\\u0065d":3}}')
    expect(r.top?.text).toBe('2')
    expect(r.nested?.text).toBe('3')
  })

  it('cuts a huge literal instead of copying it', () => {
    const r = find(`{"seed":${'9'.repeat(1_000_000)}}`)
    expect(r.top).toEqual({ text: '9'.repeat(21), integer: true, truncated: true })
  })

  it('reads around strings with escaped quotes and backslashes', () => {
    const r = find('{"a":"x\\\\","b":"\\"","seed":7}')
    expect(r.top?.text).toBe('7')
  })
})
