import { describe, expect, it } from 'vitest'
import { hasSeveralSentences, MIN_SENTENCE_CHARS, splitSentences, streamPieces } from './sentences'

describe('cutting a speech input into sentences', () => {
  it('cuts at sentence ends and keeps every word, in order', () => {
    const text = 'The first sentence is here. Is this the second sentence? Yes, and this is the third!'
    expect(splitSentences(text)).toEqual([
      'The first sentence is here.',
      'Is this the second sentence?',
      'Yes, and this is the third!',
    ])
  })

  it('keeps an abbreviation or a short exclamation with the sentence after it', () => {
    expect(splitSentences('Dr. Smith went to Washington today. Oh! It rained all day long there.')).toEqual([
      'Dr. Smith went to Washington today.',
      'Oh! It rained all day long there.',
    ])
  })

  it('gives one piece for one sentence or a short text, and none for nothing to say', () => {
    expect(splitSentences('Hello from svc.')).toEqual(['Hello from svc.'])
    expect(splitSentences('Hi. Bye.')).toEqual(['Hi. Bye.'])
    expect(splitSentences('  \n ')).toEqual([])
    expect(hasSeveralSentences('Hi. Bye.')).toBe(false)
    expect(hasSeveralSentences('x'.repeat(MIN_SENTENCE_CHARS))).toBe(false)
  })

  it('hangs trailing punctuation or space on the last piece, but says a short last sentence', () => {
    expect(splitSentences('This sentence is long enough to stand. …\n\n')).toEqual([
      'This sentence is long enough to stand. …',
    ])
    expect(splitSentences('This sentence is long enough to stand. Bye.')).toEqual([
      'This sentence is long enough to stand.',
      'Bye.',
    ])
  })

  it('cuts other scripts at their own sentence ends', () => {
    const text =
      '今日はとても良い天気ですね、散歩に行きましょう。明日は雨が降るそうなので傘を持って行きます。'
    expect(splitSentences(text, 'ja')).toEqual([
      '今日はとても良い天気ですね、散歩に行きましょう。',
      '明日は雨が降るそうなので傘を持って行きます。',
    ])
  })

  it('holds a long text as many pieces', () => {
    const text = Array.from({ length: 25 }, (_, i) => `This is sentence number ${i + 1} of the text.`).join(
      ' ',
    )
    expect(splitSentences(text)).toHaveLength(25)
    expect(hasSeveralSentences(text)).toBe(true)
  })
})

describe('grouping sentences into the engine requests of a stream', () => {
  it('asks for the first sentence alone, then doubles up to eight, keeping the order', () => {
    const sentences = Array.from({ length: 24 }, (_, i) => `S${i + 1}.`)
    const pieces = streamPieces(sentences)
    expect(pieces.map((p) => p.split(' ').length)).toEqual([1, 2, 4, 8, 8, 1])
    expect(pieces.join(' ')).toBe(sentences.join(' '))
    expect(streamPieces(['Only one.'])).toEqual(['Only one.'])
  })
})
