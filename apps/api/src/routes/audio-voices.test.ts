import { describe, expect, it } from 'vitest'
import { normaliseVoices } from './audio-voices'

describe('normaliseVoices', () => {
  it("reads Kokoro's lists, old (names) and new (objects)", () => {
    const voice = (id: string) => ({ id, name: id, language: null, gender: null, source: 'builtin' })
    expect(normaliseVoices(['af_heart', 'bm_george'])).toEqual([voice('af_heart'), voice('bm_george')])
    expect(normaliseVoices([{ id: 'af_heart', name: 'af_heart' }])).toEqual([voice('af_heart')])
  })

  it("keeps espeak-ng's language and gender, one entry per id, and skips what is not a voice", () => {
    expect(
      normaliseVoices([
        { id: 'yue', name: 'Chinese_(Cantonese)', language: 'yue', gender: 'M' },
        { id: 'yue', name: 'Chinese_(Cantonese_Jyutping)', language: 'yue', gender: 'M' },
        42,
        null,
        { name: 'only-a-name' },
        {},
      ]),
    ).toEqual([
      { id: 'yue', name: 'Chinese_(Cantonese)', language: 'yue', gender: 'M', source: 'builtin' },
      { id: 'only-a-name', name: 'only-a-name', language: null, gender: null, source: 'builtin' },
    ])
    expect(normaliseVoices(undefined)).toEqual([])
  })
})
