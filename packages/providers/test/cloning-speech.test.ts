/**
 * The cloning engine's speech translator against the Chatterbox TTS API stand-in (which follows the
 * real server's protocol; the real one needs PyTorch and model weights): an uploaded voice reaches
 * the engine as the reference of `/v1/audio/speech/upload`, other voices go to `/v1/audio/speech`, the
 * engine's WAV comes back in the format asked for, and its errors as svc's.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import {
  type ChatterboxStandIn,
  chatterboxStandInSpeech,
  missingPart,
  startChatterboxStandIn,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCloningSpeech } from '../src/tts/cloning-speech'
import { createVoiceStore, type VoiceStore } from '../src/tts/voice-store'
import { ttsModel } from './tts-models'

const exec = promisify(execFile)
const hasFfmpeg = await exec('ffmpeg', ['-version']).then(
  () => true,
  () => false,
)
if (!hasFfmpeg) missingPart('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)')

const chatterbox = ttsModel('chatterbox')
const espeak = ttsModel('espeak-ng')
/** A short WAV as a user would upload it (the stand-in only hashes it). */
const reference = (tag: string) =>
  Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.from(tag.padEnd(40, '.'))])

describe('speech in uploaded voices through the cloning engine', () => {
  let dir: string
  let engine: ChatterboxStandIn
  let voices: VoiceStore
  const translator = () => createCloningSpeech({ voices, clones: (m) => m.family === 'chatterbox' })
  const speak = (body: Record<string, unknown>, model = chatterbox) =>
    translator().handle({
      endpoint: 'speech',
      body: { model: 'tts', ...body },
      base: new URL(engine.url),
      model,
      signal: AbortSignal.timeout(10_000),
    })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-cloning-'))
    voices = createVoiceStore({ dir })
    engine = await startChatterboxStandIn()
    await voices.add({ name: 'ada', data: reference('ada') })
    await voices.add({ name: 'bob', data: reference('bob') })
  })
  afterAll(async () => {
    await engine?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('speaks in the uploaded voice: the engine got that reference', async () => {
    const res = await speak({ input: 'Hello there', voice: 'ada', response_format: 'wav' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('audio/wav')
    const audio = Buffer.from(await res.arrayBuffer())
    expect(audio.equals(chatterboxStandInSpeech('Hello there', reference('ada')))).toBe(true)
    const other = Buffer.from(
      await (
        await speak({ input: 'Hello there', voice: { id: 'bob' }, response_format: 'wav' })
      ).arrayBuffer(),
    )
    expect(other.equals(chatterboxStandInSpeech('Hello there', reference('bob')))).toBe(true)
    expect(other.equals(audio)).toBe(false)
  })

  it('gives a voice it does not hold to the engine, which speaks in its default sample', async () => {
    const res = await speak({ input: 'Hi', voice: 'alloy', response_format: 'wav' })
    const audio = Buffer.from(await res.arrayBuffer())
    expect(audio.equals(chatterboxStandInSpeech('Hi', Buffer.from('chatterbox default voice sample')))).toBe(
      true,
    )
  })

  it.skipIf(!hasFfmpeg)(
    'encodes the engine’s WAV as mp3 by default, and as flac or pcm when asked',
    async () => {
      const mp3 = await speak({ input: 'Hello', voice: 'ada' })
      expect(mp3.headers.get('content-type')).toBe('audio/mpeg')
      const bytes = Buffer.from(await mp3.arrayBuffer())
      expect(
        bytes.subarray(0, 3).toString('latin1') === 'ID3' ||
          (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0),
      ).toBe(true)
      const flac = Buffer.from(
        await (await speak({ input: 'Hello', voice: 'ada', response_format: 'flac' })).arrayBuffer(),
      )
      expect(flac.subarray(0, 4).toString('latin1')).toBe('fLaC')
      const pcm = await speak({ input: 'Hello', voice: 'ada', response_format: 'pcm' })
      // 5 characters × 50 ms at 24 kHz, 16-bit mono
      expect((await pcm.arrayBuffer()).byteLength).toBe(5 * 0.05 * 24000 * 2)
    },
  )

  it('passes the engine’s validation errors on as 400 naming the field', async () => {
    await expect(speak({ input: 'Hi', voice: 'ada', temperature: 9 })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'temperature',
    })
    await expect(speak({ input: 'Hi', voice: 'alloy', exaggeration: 0.1 })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'exaggeration',
    })
  })

  it('refuses SSE and unknown formats before asking the engine', async () => {
    await expect(speak({ input: 'Hi', stream_format: 'sse' })).rejects.toMatchObject({
      param: 'stream_format',
    })
    await expect(speak({ input: 'Hi', response_format: 'ogg' })).rejects.toMatchObject({
      param: 'response_format',
    })
  })

  it('takes an uploaded voice for an engine that cannot clone, to say so', async () => {
    const t = translator()
    expect(await t.appliesTo?.({ endpoint: 'speech', model: espeak, body: { voice: 'ada' } })).toBe(true)
    expect(await t.appliesTo?.({ endpoint: 'speech', model: espeak, body: { voice: 'alloy' } })).toBe(false)
    expect(await t.appliesTo?.({ endpoint: 'speech', model: chatterbox, body: { voice: 'alloy' } })).toBe(
      true,
    )
    await expect(speak({ input: 'Hi', voice: 'ada' }, espeak)).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'voice',
      message: expect.stringContaining('cannot clone'),
    })
  })
})
