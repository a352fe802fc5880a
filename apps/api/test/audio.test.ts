/**
 * Speech both ways, end to end: the official `openai` package against svc, with the tts slot on the
 * host engine (svc's speech server over the real espeak-ng and ffmpeg) and the stt slot on the real
 * whisper-server with a tiny random-weight model. The transcript of the espeak-ng audio is gibberish
 * (random weights); the shapes are the point.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { findEngine } from '@svc/engines'
import { type ApiProcess, missingPart, startApiWithConfig, writeTinyWhisper } from '@svc/testing'
import type OpenAI from 'openai'
import { BadRequestError, toFile } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, loadOk } from './live'

const exec = promisify(execFile)

async function onPath(program: string): Promise<boolean> {
  return exec('sh', ['-c', `command -v ${program}`]).then(
    () => true,
    () => false,
  )
}

const speechParts = (await Promise.all(['espeak-ng', 'ffmpeg', 'ffprobe'].map(onPath))).every(Boolean)
if (!speechParts) missingPart('espeak-ng and ffmpeg', 'run ./scripts/setup.sh (apt: espeak-ng ffmpeg)')
const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

describe.skipIf(!speechParts || !whisper)('speech through svc with the OpenAI SDK', () => {
  let api: ApiProcess
  let client: OpenAI
  let dir: string
  let hello: Buffer

  /** Seconds of audio per ffprobe. */
  const duration = async (audio: Buffer, name: string) => {
    const file = join(dir, name)
    await writeFile(file, audio)
    const { stdout } = await exec('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'csv=p=0',
      file,
    ])
    return Number(stdout.trim())
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-audio-'))
    const tiny = await writeTinyWhisper(join(dir, 'tiny-whisper.bin'))
    // whisper-server translates only with a multilingual model (an English-only one ignores it).
    const polyglot = await writeTinyWhisper(join(dir, 'tiny-whisper-multi.bin'), { multilingual: true })
    // One thread: two cores are shared with the API and the test.
    api = await startApiWithConfig({
      slots: {
        stt: 'args = ["-t", "1"]\n',
        translate: 'provider = "stt"\nargs = ["-t", "1"]\n',
      },
    })
    await Promise.all([
      loadOk(api, 'tts', 'espeak-ng'),
      loadOk(api, 'stt', tiny.path),
      loadOk(api, 'translate', polyglot.path),
    ])
    client = openaiClient(api)
  }, 120_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('speaks WAV', async () => {
    const res = await client.audio.speech.create({
      model: 'tts',
      voice: 'alloy',
      input: 'Hello from svc',
      response_format: 'wav',
    })
    expect(res.headers.get('content-type')).toBe('audio/wav')
    hello = Buffer.from(await res.arrayBuffer())
    expect(hello.subarray(0, 4).toString('latin1')).toBe('RIFF')
    expect(hello.subarray(8, 12).toString('latin1')).toBe('WAVE')
    expect(await duration(hello, 'hello.wav')).toBeGreaterThan(0.5)
  })

  it('speaks MP3, also when asked by the model’s ref', async () => {
    const res = await client.audio.speech.create({
      model: 'espeak-ng',
      voice: 'onyx',
      input: 'Hello from svc',
      response_format: 'mp3',
      speed: 1.25,
    })
    expect(res.headers.get('content-type')).toBe('audio/mpeg')
    const mp3 = Buffer.from(await res.arrayBuffer())
    expect(mp3.subarray(0, 3).toString('latin1') === 'ID3' || mp3[0] === 0xff).toBe(true)
    expect(await duration(mp3, 'hello.mp3')).toBeGreaterThan(0.3)
  })

  it('refuses an unknown voice with a 400 in svc’s error body', async () => {
    const error = await client.audio.speech
      .create({ model: 'tts', voice: 'no-such-voice', input: 'Hello' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BadRequestError)
    const raw = await call(api, '/v1/audio/speech', {
      method: 'POST',
      json: { model: 'tts', voice: 'no-such-voice', input: 'Hello' },
    })
    expect(raw.status).toBe(400)
    expect(raw.body).toEqual({
      error: {
        code: 'request.invalid',
        message: expect.stringContaining('voice "no-such-voice" is not available'),
        type: 'invalid_request_error',
        param: null,
      },
    })
  })

  it('transcribes the spoken WAV into {text}', async () => {
    const r = await client.audio.transcriptions.create({
      model: 'stt',
      file: await toFile(hello, 'hello.wav'),
    })
    expect(typeof r.text).toBe('string')
  })

  it('passes response_format text and verbose_json through as whisper-server answers them', async () => {
    const text = await client.audio.transcriptions.create({
      model: 'stt',
      file: await toFile(hello, 'hello.wav'),
      response_format: 'text',
    })
    expect(typeof text).toBe('string')
    const verbose = await client.audio.transcriptions.create({
      model: 'stt',
      file: await toFile(hello, 'hello.wav'),
      response_format: 'verbose_json',
    })
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'english', text: expect.any(String) })
    expect(verbose.duration).toBeGreaterThan(0.5)
    expect(Array.isArray(verbose.segments)).toBe(true)
  })

  it('translates speech to English text on an stt slot, in the formats of transcriptions', async () => {
    const r = await client.audio.translations.create({
      model: 'translate',
      file: await toFile(hello, 'hello.wav'),
    })
    expect(typeof r.text).toBe('string')
    const text = await client.audio.translations.create({
      model: 'translate',
      file: await toFile(hello, 'hello.wav'),
      response_format: 'text',
    })
    expect(typeof text).toBe('string')
    // whisper-server names the task it ran: svc asked it to translate.
    const verbose = await client.audio.translations.create({
      model: 'translate',
      file: await toFile(hello, 'hello.wav'),
      response_format: 'verbose_json',
    })
    expect(verbose).toMatchObject({ task: 'translate', text: expect.any(String) })
    expect((verbose as { duration?: number }).duration).toBeGreaterThan(0.5)
  })

  it('turns whisper-server’s plain-text 400 into svc’s error body', async () => {
    const form = new FormData()
    form.append('model', 'stt')
    const res = await fetch(`${api.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      error: { code: 'request.invalid', type: 'invalid_request_error' },
    })
  })
})
