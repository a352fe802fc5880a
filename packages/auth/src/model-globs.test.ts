import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { compileModelGlobs, ModelGlobsSchema, parseModelGlobList } from './model-globs'

describe('model globs', () => {
  it('matches whole names, with * for any run and ? for one character', () => {
    const m = compileModelGlobs(['qwen3-8b*', 'embed', 'tiny-?b'])
    expect(m.matches('qwen3-8b')).toBe(true)
    expect(m.matches('qwen3-8b:nothink')).toBe(true)
    expect(m.matches('qwen3-8b-q4_k_m')).toBe(true)
    expect(m.matches('embed')).toBe(true)
    expect(m.matches('tiny-3b')).toBe(true)
    expect(m.matches('tiny-13b')).toBe(false)
    expect(m.matches('embedder')).toBe(false)
    expect(m.matches('xqwen3-8b')).toBe(false)
    expect(m.matches('primary')).toBe(false)
  })

  it('takes every other character literally, slashes and dots included, and counts case', () => {
    const m = compileModelGlobs(['hf.co/unsloth/*', 'a+b', 'x.y'])
    expect(m.matches('hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M')).toBe(true)
    expect(m.matches('hfxco/unsloth/q')).toBe(false)
    expect(m.matches('a+b')).toBe(true)
    expect(m.matches('aab')).toBe(false)
    expect(m.matches('xzy')).toBe(false)
    expect(m.matches('X.y')).toBe(false)
  })

  it('refuses an empty list, empty entries and white space in the file', () => {
    expect(v.safeParse(ModelGlobsSchema, []).success).toBe(false)
    expect(v.safeParse(ModelGlobsSchema, ['']).success).toBe(false)
    expect(v.safeParse(ModelGlobsSchema, ['a b']).success).toBe(false)
    expect(v.safeParse(ModelGlobsSchema, ['qwen*', 'embed']).success).toBe(true)
  })

  it('reads a comma-separated list; nothing in it means every model', () => {
    expect(parseModelGlobList(' qwen3-8b*, embed ,')).toEqual(['qwen3-8b*', 'embed'])
    expect(parseModelGlobList('')).toBeNull()
    expect(parseModelGlobList(' , ')).toBeNull()
    expect(parseModelGlobList(undefined)).toBeNull()
  })
})
