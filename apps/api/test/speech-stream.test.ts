/**
 * Streaming speech through svc with the real espeak-ng speech server: a long text is spoken sentence
 * by sentence, the first audio reaching the client while the engine still has sentences to go; the
 * audio is all there in every format; `stream_format: "sse"` is read by the official `openai`
 * client; a client that leaves stops the engine's work. The engine sits behind a recording proxy
 * (speech-tap.ts) so the test sees each sentence svc asks for.
 */
import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { promisify } from 'node:util'
import { type ApiProcess, missingPart, startApiWithConfig } from '@svc/testing'
import type OpenAI from 'openai'
import { Stream } from 'openai/streaming'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, type SlotBody, waitForSlot } from './live'
import { type SpeechTap, startSpeechTap } from './speech-tap'

const exec = promisify(execFile)
const onPath = (program: string) =>
  exec('sh', ['-c', `command -v ${program}`]).then(
    () => true,
    () => false,
  )
const parts = (await Promise.all(['espeak-ng', 'ffmpeg', 'ffprobe'].map(onPath))).every(Boolean)
if (!parts) missingPart('espeak-ng and ffmpeg', 'run ./scripts/setup.sh (apt: espeak-ng ffmpeg)')

const SENTENCES = 24
const LONG = Array.from(
  { length: SENTENCES },
  (_, i) => `This is sentence number ${i + 1} of a long text that svc speaks as it goes.`,
).join(' ')
/** 24 kHz s16le mono. */
const BYTES_PER_SECOND = 48_000

type SpeechEvent =
  | { type: 'speech.audio.delta'; audio: string }
  | {
      type: 'speech.audio.done'
      usage: { input_tokens: number; output_tokens: number; total_tokens: number }
    }

/** What a streaming client sees: when the first and last bytes came, and the bytes. */
async function timedSpeech(api: ApiProcess, body: Record<string, unknown>) {
  const began = performance.now()
  const res = await fetch(`${api.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts', voice: 'alloy', input: LONG, ...body }),
  })
  if (res.status !== 200) throw new Error(`speech answered ${res.status}: ${await res.text()}`)
  const chunks: Buffer[] = []
  let firstAt = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (chunks.length === 0) firstAt = performance.now()
    chunks.push(Buffer.from(chunk))
  }
  return { res, audio: Buffer.concat(chunks), began, firstAt, lastAt: performance.now() }
}

/** The samples ffmpeg decodes from `audio` (any format), as 24 kHz mono s16le bytes. */
async function decodedBytes(audio: Buffer): Promise<number> {
  const child = execFile(
    'ffmpeg',
    ['-v', 'error', '-i', 'pipe:0', '-f', 's16le', '-ar', '24000', '-ac', '1', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    },
  )
  const out = new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = []
    child.stdout?.on('data', (c: Buffer) => parts.push(c))
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(parts)) : reject(new Error(`ffmpeg ${code}`)),
    )
  })
  child.stdin?.end(audio)
  return (await out).length
}

describe.skipIf(!parts)('streaming speech through svc', () => {
  let tap: SpeechTap
  let api: ApiProcess
  let client: OpenAI
  let pcm: Buffer
  /** How many engine requests svc made for LONG. */
  let pieces: number

  beforeAll(async () => {
    tap = await startSpeechTap()
    api = await startApiWithConfig({
      slots: { tts: `enabled = true\nprovider = "tts"\nruntime = "remote"\nurl = "${tap.url}"\n` },
    })
    await waitForSlot(api, 'tts', (s) => s.state === 'ready', 30_000)
    client = openaiClient(api)
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await tap?.[Symbol.asyncDispose]()
  })

  it('sends the first audio of a long text while the engine still speaks the rest, and all of it', async () => {
    const from = tap.speech.length
    const heard = await timedSpeech(api, { response_format: 'pcm' })
    pcm = heard.audio
    expect(heard.res.headers.get('content-type')).toBe('audio/pcm')
    const asked = tap.speech.slice(from)
    // The first sentence asked alone, then the rest in order, in fewer requests than sentences.
    expect(asked[0]?.input).toBe(LONG.match(/This is sentence[^.]*\./)?.[0])
    expect(asked.map((r) => r.input).join(' ')).toBe(LONG)
    pieces = asked.length
    expect(pieces).toBeGreaterThan(2)
    expect(pieces).toBeLessThan(SENTENCES)
    // The first bytes came before the engine had even been asked for the last sentences.
    const last = asked.at(-1)!
    expect(heard.firstAt).toBeLessThan(last.startedAt)
    expect(heard.firstAt - heard.began).toBeLessThan((heard.lastAt - heard.began) / 2)
    // Complete: every sentence's WAV (espeak-ng's 22.05 kHz, 44-byte header) is in the answer at 24 kHz.
    const expected = asked.reduce(
      (sum, r) => sum + Math.round(((r.bytes - 44) / 2) * (24_000 / 22_050)) * 2,
      0,
    )
    expect(Math.abs(pcm.length - expected)).toBeLessThanOrEqual(SENTENCES * 2)
    expect(pcm.length / BYTES_PER_SECOND).toBeGreaterThan(SENTENCES * 2) // a few seconds a sentence
    // Speech, not silence.
    let energy = 0
    for (let i = 0; i < pcm.length; i += 2) energy += pcm.readInt16LE(i) ** 2
    expect(Math.sqrt(energy / (pcm.length / 2))).toBeGreaterThan(300)
  }, 120_000)

  it('streams wav as one header of unknown length, then the same samples', async () => {
    const heard = await timedSpeech(api, { response_format: 'wav' })
    const wav = heard.audio
    expect(heard.res.headers.get('content-type')).toBe('audio/wav')
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF')
    expect(wav.readUInt32LE(40)).toBe(0xffffffff)
    expect(wav.readUInt32LE(24)).toBe(24_000)
    expect(wav.subarray(44).equals(pcm)).toBe(true)
    expect(await decodedBytes(wav)).toBe(pcm.length)
  }, 120_000)

  it('streams mp3 and opus as one valid file each, as long as the pcm', async () => {
    for (const format of ['mp3', 'opus'] as const) {
      const from = tap.speech.length
      const heard = await timedSpeech(api, { response_format: format })
      expect(heard.firstAt).toBeLessThan(tap.speech.at(-1)!.startedAt)
      expect(tap.speech.length - from).toBe(pieces)
      // Encoders pad the ends by a few frames: within 0.2 s of the pcm.
      expect(Math.abs((await decodedBytes(heard.audio)) - pcm.length)).toBeLessThan(0.2 * BYTES_PER_SECOND)
    }
  }, 180_000)

  it('answers stream_format "sse" as OpenAI’s speech events, read by the openai client', async () => {
    const res = await client.audio.speech.create({
      model: 'tts',
      voice: 'alloy',
      input: LONG,
      response_format: 'pcm',
      stream_format: 'sse',
    })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events: SpeechEvent[] = []
    for await (const event of Stream.fromSSEResponse<SpeechEvent>(res, new AbortController()))
      events.push(event)
    const deltas = events.filter((e) => e.type === 'speech.audio.delta')
    expect(deltas.length).toBeGreaterThanOrEqual(SENTENCES)
    const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio, 'base64')))
    expect(audio.equals(pcm)).toBe(true)
    expect(events.at(-1)).toEqual({
      type: 'speech.audio.done',
      usage: { input_tokens: [...LONG].length, output_tokens: 0, total_tokens: [...LONG].length },
    })
    // One sentence works the same way (mp3 by default, as OpenAI).
    const short = await client.audio.speech.create({
      model: 'tts',
      voice: 'alloy',
      input: 'Hello from svc.',
      stream_format: 'sse',
    })
    const few: SpeechEvent[] = []
    for await (const event of Stream.fromSSEResponse<SpeechEvent>(short, new AbortController()))
      few.push(event)
    expect(few.at(-1)?.type).toBe('speech.audio.done')
    const mp3 = Buffer.concat(
      few.flatMap((e) => (e.type === 'speech.audio.delta' ? [Buffer.from(e.audio, 'base64')] : [])),
    )
    expect(await decodedBytes(mp3)).toBeGreaterThan(0.5 * BYTES_PER_SECOND)
  }, 120_000)

  it('stops asking the engine when the client goes away, and gives the slot back', async () => {
    const from = tap.speech.length
    const abort = new AbortController()
    const res = await fetch(`${api.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts', voice: 'alloy', input: LONG, response_format: 'pcm' }),
      signal: abort.signal,
    })
    expect((await res.body!.getReader().read()).value?.length).toBeGreaterThan(0)
    abort.abort()
    await waitForSlot(api, 'tts', (s: SlotBody) => s.inflight === 0, 10_000)
    const asked = tap.speech.length - from
    await new Promise((r) => setTimeout(r, 1_500))
    expect(tap.speech.length - from).toBe(asked)
    expect(asked).toBeLessThan(pieces)
  }, 60_000)

  it('speaks no further ahead than a client reads, and gives the slot back when it leaves unread', async () => {
    // As long as svc takes (4096 characters), slowly spoken: more audio (~20 MB) than the
    // kernel's socket buffers hold, so a client that does not read makes svc's writes wait.
    const sentences = Math.floor(4096 / (LONG.length / SENTENCES + 1))
    const input = Array.from(
      { length: sentences },
      (_, i) => LONG.match(/This is sentence[^.]*\./g)![i % SENTENCES],
    ).join(' ')
    const from = tap.speech.length
    const socket = connect(api.port, '127.0.0.1')
    socket.pause() // never reads
    const body = JSON.stringify({ model: 'tts', voice: 'alloy', input, speed: 0.5, response_format: 'pcm' })
    socket.write(
      `POST /v1/audio/speech HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    )
    // Wait until svc waits on the client: every engine request it made has ended and it made no
    // new one for 2 s (svc asks for the next piece at once when it can write), at most 40 s.
    let asked = -1
    for (const deadline = Date.now() + 40_000; Date.now() < deadline; ) {
      const mine = tap.speech.slice(from)
      if (mine.length === asked && mine.every((r) => r.endedAt !== undefined)) break
      asked = mine.length
      await new Promise((r) => setTimeout(r, 2_000))
    }
    expect((await call<SlotBody>(api, '/api/slots/tts')).body.inflight).toBe(1)
    expect(asked).toBeGreaterThan(0)
    // Not the whole text: what was asked ends before the input does.
    const said = tap.speech
      .slice(from)
      .map((r) => r.input)
      .join(' ')
    expect(said.length).toBeLessThan(input.length)
    socket.destroy()
    await waitForSlot(api, 'tts', (s: SlotBody) => s.inflight === 0, 10_000)
    expect(tap.speech.length - from).toBe(asked)
  }, 90_000)

  it('refuses a bad stream_format or voice in a long text with svc’s 400', async () => {
    const bad = await call(api, '/v1/audio/speech', {
      method: 'POST',
      json: { model: 'tts', voice: 'alloy', input: LONG, stream_format: 'chunks' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ error: { code: 'request.invalid', param: 'stream_format' } })
    const voice = await call(api, '/v1/audio/speech', {
      method: 'POST',
      json: { model: 'tts', voice: 'no-such-voice', input: LONG, stream_format: 'sse' },
    })
    expect(voice.status).toBe(400)
    expect(voice.body).toMatchObject({
      error: { code: 'request.invalid', param: 'voice', message: expect.stringContaining('no-such-voice') },
    })
  })
})
