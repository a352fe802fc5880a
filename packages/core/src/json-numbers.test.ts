import { describe, expect, it } from 'vitest'
import { parseJsonNumbers } from './json-numbers'

describe('parseJsonNumbers', () => {
  it('hands every number literal to revive, exactly as written, and leaves strings alone', () => {
    const seen: string[] = []
    const out = parseJsonNumbers('{"a": 18446744073709551615, "b": [1.0, -2e3], "c": "42 \\"7\\""}', (n) => {
      seen.push(`${n.text}:${n.integer}`)
      return n.integer ? BigInt(n.text) : undefined
    })
    expect(seen).toEqual(['18446744073709551615:true', '1.0:false', '-2e3:false'])
    expect(out).toEqual({ a: 18446744073709551615n, b: [1, -2000], c: '42 "7"' })
  })

  it('is not fooled by a string that looks like its marker, and throws on invalid JSON', () => {
    expect(parseJsonNumbers('{"s": "\\u0000n:x:i5"}', () => 0)).toEqual({ s: '\u0000n:x:i5' })
    expect(() => parseJsonNumbers('{"a": 1,', () => undefined)).toThrow(SyntaxError)
  })
})
