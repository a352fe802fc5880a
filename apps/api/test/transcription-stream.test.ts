/**
 * Streaming transcription end to end: real speech (espeak-ng, three sentences with 1.2 s pauses)
 * sent with `stream=true` through svc to the real whisper-server (tiny random-weight model: the
 * words are gibberish, so counts, order, timing and shapes are asserted, not text). svc decodes the
 * upload, cuts it with the VAD and streams one `transcript.text.delta` per spoken segment.
 */
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  missingPart,
  programAvailable,
  type SpokenPauses,
  speakWithPauses,
  startApiWithConfig,
  tempDirs,
  writeTinyWhisper,
} from '@svc/testing'
import { toFile } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, loadOk } from './live'

const parts =
  programAvailable('espeak-ng', 'run ./scripts/setup.sh (apt: espeak-ng)') &&
  programAvailable('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)')
const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Streaming speech arrives in pieces.',
  'This is the third and final sentence of the test.',
]

interface Timed {
  at: number
  event: string | undefined
  data: Record<string, unknown>
}

/** POSTs a multipart form and reads the SSE answer, noting when each event arrived (ms since sent). */
async function postStream(api: ApiProcess, path: string, fields: Record<string, string | Blob>) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  const sent = performance.now()
  const res = await fetch(`${api.url}${path}`, { method: 'POST', body: form })
  const events: Timed[] = []
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { res, events, json: (await res.json()) as Record<string, unknown> }
  }
  const decoder = new TextDecoder()
  let buffered = ''
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true })
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (data) events.push({ at: performance.now() - sent, event, data: JSON.parse(data) })
    }
  }
  return { res, events, json: undefined }
}

describe.skipIf(!parts || !whisper)('streaming transcription through svc', () => {
  let api: ApiProcess
  let spoken: SpokenPauses
  const temp = tempDirs('svc-stt-stream-')

  beforeAll(async () => {
    const dir = await temp.make()
    const tiny = await writeTinyWhisper(`${dir}/tiny-whisper.bin`)
    // One thread: two cores are shared with the API and the test.
    api = await startApiWithConfig({ slots: { stt: 'args = ["-t", "1"]\n' } })
    ;[spoken] = await Promise.all([
      speakWithPauses(SENTENCES, { pauseMs: 1200 }),
      loadOk(api, 'stt', tiny.path),
    ])
  }, 180_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await temp.removeAll()
  })

  const wavFile = () => new Blob([spoken.wav], { type: 'audio/wav' })

  it('loads the speech detector in the background once the stt slot is ready, before any streamed request', async () => {
    // A user's first stream=true transcription would otherwise pay for it (1–9 s).
    await expect.poll(() => api.output(), { timeout: 30_000 }).toMatch(/speech detector loaded/)
    const log = api.output()
    const ready = log.search(/"slot":"stt".*"to":"ready"|"to":"ready".*"slot":"stt"/)
    expect(ready).toBeGreaterThanOrEqual(0)
    expect(log.indexOf('speech detector loaded')).toBeGreaterThan(ready)
    expect(log).not.toMatch(/speech detector did not load/)
  })

  it('answers one delta per spoken segment, the first well before the last, then done with usage', async () => {
    const { res, events } = await postStream(api, '/v1/audio/transcriptions', {
      model: 'stt',
      stream: 'true',
      file: new File([wavFile()], 'speech.wav', { type: 'audio/wav' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const deltas = events.filter((e) => e.data.type === 'transcript.text.delta')
    const done = events.at(-1)
    expect(events.map((e) => e.data.type)).toEqual([
      ...SENTENCES.map(() => 'transcript.text.delta'),
      'transcript.text.done',
    ])
    for (const delta of deltas) expect(String(delta.data.delta).trim()).not.toBe('')
    // The whole text is the deltas in order.
    expect(done?.data.text).toBe(deltas.map((d) => d.data.delta).join(''))
    expect(done?.data.usage).toEqual({
      type: 'duration',
      seconds: expect.closeTo(spoken.durationMs / 1000, 1),
    })
    // Segment by segment: the first text arrives while the last segment is still to be transcribed.
    const first = deltas[0]?.at ?? Number.NaN
    const last = deltas.at(-1)?.at ?? Number.NaN
    expect(first).toBeLessThan(last)
    expect(last - first).toBeGreaterThan(100)
  }, 180_000)

  it('is parsed by the official openai client', async () => {
    const stream = await openaiClient(api).audio.transcriptions.create({
      model: 'stt',
      file: await toFile(Buffer.from(spoken.wav), 'speech.wav', { type: 'audio/wav' }),
      stream: true,
    })
    const types: string[] = []
    let text = ''
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'transcript.text.delta') text += event.delta
      if (event.type === 'transcript.text.done') expect(event.text).toBe(text)
    }
    expect(types).toEqual([...SENTENCES.map(() => 'transcript.text.delta'), 'transcript.text.done'])
  }, 180_000)

  it('streams translations the same way', async () => {
    const { res, events } = await postStream(api, '/v1/audio/translations', {
      model: 'stt',
      stream: 'true',
      file: new File([wavFile()], 'speech.wav', { type: 'audio/wav' }),
    })
    expect(res.status).toBe(200)
    expect(events.at(-1)?.data.type).toBe('transcript.text.done')
    expect(events.filter((e) => e.data.type === 'transcript.text.delta')).toHaveLength(SENTENCES.length)
  }, 180_000)

  it('stops when the client goes away: the slot is idle again long before the rest could be transcribed', async () => {
    const long = await speakWithPauses(
      Array.from({ length: 8 }, (_, i) => `Sentence number ${i + 1} is spoken here.`),
      { pauseMs: 800 },
    )
    const form = new FormData()
    form.set('model', 'stt')
    form.set('stream', 'true')
    form.set('file', new File([long.wav], 'long.wav', { type: 'audio/wav' }))
    const client = new AbortController()
    const res = await fetch(`${api.url}/v1/audio/transcriptions`, {
      method: 'POST',
      body: form,
      signal: client.signal,
    })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('transcript.text.delta')
    const firstAt = performance.now()
    client.abort()
    const state = async () => (await call<{ state: string }>(api, '/api/slots/stt')).body.state
    let idleAt = Number.NaN
    for (let i = 0; i < 100; i++) {
      if ((await state()) === 'idle') {
        idleAt = performance.now()
        break
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    // Seven segments were left, each a whisper-server request: they would take seconds more.
    expect(idleAt - firstAt).toBeLessThan(3000)
    // And it stays idle: nothing went on in the background.
    await new Promise((r) => setTimeout(r, 1500))
    expect(await state()).toBe('idle')
  }, 120_000)

  it('answers as before without stream', async () => {
    const { res, json } = await postStream(api, '/v1/audio/transcriptions', {
      model: 'stt',
      file: new File([wavFile()], 'speech.wav', { type: 'audio/wav' }),
    })
    expect(res.status).toBe(200)
    expect(typeof json?.text).toBe('string')
  }, 120_000)

  it('refuses a response_format that cannot stream, and audio it cannot read, with svc’s JSON error', async () => {
    const srt = await postStream(api, '/v1/audio/transcriptions', {
      model: 'stt',
      stream: 'true',
      response_format: 'srt',
      file: new File([wavFile()], 'speech.wav', { type: 'audio/wav' }),
    })
    expect(srt.res.status).toBe(400)
    expect(srt.json).toMatchObject({ error: { code: 'request.invalid', param: 'response_format' } })
    const junk = await postStream(api, '/v1/audio/transcriptions', {
      model: 'stt',
      stream: 'true',
      file: new File(['this is not audio'], 'speech.wav', { type: 'audio/wav' }),
    })
    expect(junk.res.status).toBe(400)
    expect(junk.json).toMatchObject({ error: { code: 'audio.unreadable' } })
  }, 60_000)
})
