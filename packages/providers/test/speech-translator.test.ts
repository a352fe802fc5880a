/**
 * Streamed speech in an uploaded voice: the speech translator over the cloning translator, against
 * the Chatterbox TTS API stand-in (the real server needs PyTorch and weights). Each piece of a long
 * text goes to the engine with the voice's reference, and the pieces' audio comes back in order.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ChatterboxStandIn, chatterboxStandInSpeech, startChatterboxStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCloningSpeech } from '../src/tts/cloning-speech'
import { splitSentences, streamPieces } from '../src/tts/sentences'
import { createSpeechTranslator } from '../src/tts/speech-translator'
import { createVoiceStore } from '../src/tts/voice-store'
import { wavToPcm24k } from '../src/tts/wav-to-pcm24k'
import { ttsModel } from './tts-models'

const reference = Buffer.concat([
  Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'),
  Buffer.from('ada'.padEnd(40, '.')),
])
const TEXT = Array.from({ length: 7 }, (_, i) => `Sentence ${i + 1} is spoken in the voice of Ada.`).join(' ')

describe('streamed speech in an uploaded voice', () => {
  let dir: string
  let engine: ChatterboxStandIn
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-stream-clone-'))
    engine = await startChatterboxStandIn()
  })
  afterAll(async () => {
    await engine?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('sends the reference with every piece and answers their audio in order', async () => {
    const voices = createVoiceStore({ dir })
    await voices.add({ name: 'ada', data: reference })
    const cloning = createCloningSpeech({ voices, clones: (m) => m.family === 'chatterbox' })
    const translator = createSpeechTranslator({ cloning, upstreamModel: () => undefined })
    const request = {
      endpoint: 'speech' as const,
      body: { model: 'tts', voice: 'ada', input: TEXT, response_format: 'pcm' },
      base: new URL(engine.url),
      model: ttsModel('chatterbox'),
      signal: AbortSignal.timeout(20_000),
    }
    expect(await translator.appliesTo?.(request)).toBe(true)
    const res = await translator.handle(request)
    expect(res.headers.get('content-type')).toBe('audio/pcm')
    const audio = Buffer.from(await res.arrayBuffer())
    const pieces = streamPieces(splitSentences(TEXT))
    expect(pieces).toHaveLength(3) // 1, 2, 4 sentences
    const expected = Buffer.concat(pieces.map((p) => wavToPcm24k(chatterboxStandInSpeech(p, reference))))
    expect(audio.equals(expected)).toBe(true)
  })
})
