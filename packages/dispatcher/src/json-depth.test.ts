import { describe, expect, it } from 'vitest'
import { assertJsonDepth, JSON_DEPTH_CHECK_BYTES, jsonNestsDeeper, MAX_JSON_DEPTH } from './json-depth'

const nest = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('jsonNestsDeeper', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeper(nest(3), 3)).toBe(false)
    expect(jsonNestsDeeper(nest(4), 3)).toBe(true)
    expect(jsonNestsDeeper('{"a":{"b":{"c":[1]}}}', 3)).toBe(true)
    expect(jsonNestsDeeper('{"a":"[[[[[[[[{{{{{{"}', 2)).toBe(false)
    expect(jsonNestsDeeper('{"a":"\\"[[[[[[[","b":1}', 2)).toBe(false)
    expect(jsonNestsDeeper('{"a":"\\\\","b":[[[[1]]]]}', 3)).toBe(true)
  })

  it('stops at the first level too deep, whatever follows', () => {
    expect(jsonNestsDeeper(`${nest(1_000_000)}garbage"`)).toBe(true)
  })
})

describe('assertJsonDepth', () => {
  it('refuses a body over the threshold that nests deeper than allowed, with 400 request.invalid', () => {
    const deep = `{"model":"m","x":${nest(MAX_JSON_DEPTH + 1)},"pad":"${'p'.repeat(JSON_DEPTH_CHECK_BYTES)}"}`
    expect(() => assertJsonDepth(deep)).toThrow(
      expect.objectContaining({ code: 'request.invalid', status: 400 }),
    )
    const fine = `{"model":"m","x":${nest(MAX_JSON_DEPTH - 1)},"pad":"${'p'.repeat(JSON_DEPTH_CHECK_BYTES)}"}`
    expect(() => assertJsonDepth(fine)).not.toThrow()
  })
})
