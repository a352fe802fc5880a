import { describe, expect, it } from 'vitest'
import { didYouMean, suggestion } from './did-you-mean'

describe('didYouMean', () => {
  it('names the closest candidate for a typo', () => {
    expect(didYouMean('lss', ['load', 'unload', 'ls', 'list'])).toBe('ls')
    expect(didYouMean('--modle', ['--model', '--sha256', '--mmproj'])).toBe('--model')
    expect(didYouMean('qwen3-0.6b-q8', ['qwen3-0.6b-q8_0', 'qwen3-embedding-0.6b-q8_0'])).toBe(
      'qwen3-0.6b-q8_0',
    )
    expect(didYouMean('STATUS', ['status', 'slot'])).toBe('status')
  })

  it('names nothing when no candidate is near, or the input is one', () => {
    expect(didYouMean('frobnicate', ['status', 'slot', 'models'])).toBeUndefined()
    expect(didYouMean('ls', ['ls', 'list'])).toBeUndefined()
    expect(didYouMean('x', [])).toBeUndefined()
  })

  it('words the suggestion for commands and for options', () => {
    expect(suggestion('lss', ['ls'])).toBe(' (did you mean "ls"?)')
    expect(suggestion('--modle', ['--model'], false)).toBe(' (did you mean --model?)')
    expect(suggestion('zzz', ['ls'])).toBe('')
  })
})
