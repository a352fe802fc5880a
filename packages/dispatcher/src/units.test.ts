import { describe, expect, it } from 'vitest'
import { formUnits, requestUnits } from './units'

describe('requestUnits', () => {
  it('counts the characters a speech request sends, in code points', () => {
    expect(requestUnits('speech', { model: 'tts', input: 'héllo 👋' })).toEqual({ characters: 7 })
  })

  it('counts the images a generation asks for, one by default', () => {
    expect(requestUnits('images', { prompt: 'a cat', n: 3 })).toEqual({ images: 3 })
    expect(requestUnits('images', { prompt: 'a cat' })).toEqual({ images: 1 })
  })

  it('counts the images an edit’s form asks for, one by default or when n is no number', () => {
    const form = (n?: string) => {
      const f = new FormData()
      f.append('prompt', 'a hat')
      if (n !== undefined) f.append('n', n)
      return f
    }
    expect(formUnits('images', form('3'))).toEqual({ images: 3 })
    expect(formUnits('images', form())).toEqual({ images: 1 })
    expect(formUnits('images', form('many'))).toEqual({ images: 1 })
  })

  it('has nothing to add for chat', () => {
    expect(requestUnits('chat', { messages: [] })).toBeUndefined()
  })
})
