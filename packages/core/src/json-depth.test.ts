import { describe, expect, it } from 'vitest'
import {
  assertJsonDepth,
  JSON_DEPTH_CHECK_BYTES,
  jsonNestsDeeper,
  jsonTooCostly,
  MAX_JSON_CONTAINERS,
  MAX_JSON_DEPTH,
} from './json-depth'

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

describe('assertJsonDepth on many objects and arrays', () => {
  it('refuses more objects and arrays than a real request holds, before JSON.parse pays ~0.3 µs for each', () => {
    const many = `{"model":"m","messages":[${'{},'.repeat(MAX_JSON_CONTAINERS)}{}]}`
    expect(() => assertJsonDepth(many)).toThrow(/more than 100000 objects and arrays/)
    expect(jsonTooCostly(`[${'[],'.repeat(10)}[]]`, 256, 10)).toBe('containers')
    expect(jsonTooCostly(`[${'[],'.repeat(9)}[]]`, 256, 11)).toBeUndefined()
  })

  it('counts neither numbers and strings nor brackets inside strings', () => {
    expect(() => assertJsonDepth(`{"prompt":[${'0,'.repeat(1_000_000)}0]}`)).not.toThrow()
    expect(() => assertJsonDepth(`{"input":"${'{'.repeat(1_000_000)}"}`)).not.toThrow()
  })
})
