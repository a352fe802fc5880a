/**
 * The Realtime API end to end, as an installed svc is reached: the official `openai` client's
 * `OpenAIRealtimeWS` over `wss:` through the real Caddy (its internal CA the only one trusted), auth
 * on and a `v1-only` token, against real whisper-server (stt), llama-server (primary) and espeak-ng
 * (tts) behind svc. Audio in is espeak-ng's speech; the models have random weights, so what they say
 * is gibberish: the events, their order and the audio's presence are the point.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Scope } from '@svc/auth'
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  llamaKeyHeaders,
  missingPart,
  programAvailable,
  startApi,
  writeSvcConfig,
  writeTinyGguf,
  writeTinyWhisper,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from './auth-harness'
import { call, llamaServerAvailable, type SlotBody } from './live'
import {
  openRealtime,
  sendAudio,
  silencePcm,
  speechPcm,
  startTlsFront,
  type TlsFront,
} from './realtime-harness'

const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')
const present = [
  whisper,
  llamaServerAvailable(),
  programAvailable('caddy', 'run ./scripts/setup.sh (apt: caddy)'),
  programAvailable('espeak-ng', 'run ./scripts/setup.sh (apt: espeak-ng)'),
  programAvailable('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)'),
].every(Boolean)

describe.skipIf(!present)('the Realtime API through Caddy with the official client', () => {
  let dir: string
  let api: ApiProcess
  let front: TlsFront
  let admin: string
  let voice: string
  let speech: Buffer

  const configDir = () => join(dir, 'config')
  const mint = async (label: string, scope: Scope) => (await mintToken(configDir(), { label, scope })).token
  const as = (token: string) => ({ authorization: `Bearer ${token}` })
  async function load(slot: string, model: string) {
    const r = await call(api, `/api/slots/${slot}/load?wait=true`, {
      method: 'POST',
      json: { model },
      headers: as(admin),
    })
    expect(r.status, `${JSON.stringify(r.body)}\n${api.output().slice(-3000)}`).toBe(200)
  }
  const slot = async (name: string) =>
    (await call<SlotBody>(api, `/api/slots/${name}`, { headers: as(admin) })).body

  const open = (model: string) => openRealtime(front, voice, model)

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-realtime-'))
    await writeSvcConfig(configDir(), {
      slots: {
        primary:
          'backend = "cpu"\nruntime = "process"\nrestart = "no"\nargs = ["-c", "512", "-np", "1", "--threads", "1"]\n',
        stt: 'args = ["-t", "1"]\n',
      },
    })
    const [gguf, tiny] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' }),
      writeTinyWhisper(join(dir, 'tiny-whisper.bin')),
    ])
    admin = await mint('admin', 'admin')
    voice = await mint('voice', 'v1-only')
    api = await startApi({
      configDir: configDir(),
      stateDir: join(dir, 'state'),
      env: { SVC_AUTH_ENABLED: '1' },
    })
    await Promise.all([load('primary', gguf.path), load('stt', tiny.path), load('tts', 'espeak-ng')])
    front = await startTlsFront(api.url)
    speech = Buffer.concat([await speechPcm('Hello there. How are you today?', dir), silencePcm(300)])
  }, 180_000)

  afterAll(async () => {
    await front?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('completes a transcription session: committed audio → transcript deltas → completed', async () => {
    const { rt, log } = await open('stt')
    expect(log.of('session.created')[0]?.session).toMatchObject({
      type: 'realtime',
      object: 'realtime.session',
    })
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'stt' },
            turn_detection: null,
          },
        },
      },
    })
    const updated = await log.next('session.updated')
    expect(updated.session).toMatchObject({
      type: 'transcription',
      audio: { input: { turn_detection: null } },
    })
    sendAudio(rt, speech)
    rt.send({ type: 'input_audio_buffer.commit' })
    const committed = await log.next('input_audio_buffer.committed')
    const completed = await log.next('conversation.item.input_audio_transcription.completed')
    expect(completed.item_id).toBe(committed.item_id)
    expect(typeof completed.transcript).toBe('string')
    const deltas = log.of('conversation.item.input_audio_transcription.delta')
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas.map((d) => d.delta).join('')).toBe(completed.transcript)
    expect(log.of('error')).toEqual([])
    rt.close()
  }, 120_000)

  it('answers a spoken turn: transcript, then text and audio deltas, then response.done', async () => {
    const { rt, log } = await open('primary')
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        max_output_tokens: 24,
        audio: { input: { turn_detection: null }, output: { voice: 'alloy' } },
      },
    })
    await log.next('session.updated')
    sendAudio(rt, speech)
    rt.send({ type: 'input_audio_buffer.commit' })
    rt.send({ type: 'response.create' })
    const done = await log.next('response.done')
    expect(done.response).toMatchObject({ object: 'realtime.response', status: 'completed' })
    const types = log.events.map((e) => e.type)
    // The answer starts only once the user's words are known.
    expect(types.indexOf('conversation.item.input_audio_transcription.completed')).toBeLessThan(
      types.indexOf('response.output_item.added'),
    )
    const transcript = log
      .of('response.output_audio_transcript.delta')
      .map((e) => e.delta)
      .join('')
    expect(transcript.length).toBeGreaterThan(0)
    expect(log.of('response.output_audio_transcript.done')[0]?.transcript).toBe(transcript)
    const audio = Buffer.concat(
      log.of('response.output_audio.delta').map((e) => Buffer.from(String(e.delta), 'base64')),
    )
    // pcm16 at 24 kHz: whole samples, and espeak-ng said something (at least a tenth of a second).
    expect(audio.byteLength % 2).toBe(0)
    expect(audio.byteLength).toBeGreaterThan(4800)
    expect(types.indexOf('response.output_audio.delta')).toBeLessThan(types.indexOf('response.done'))

    // The same conversation, answered in text.
    const from = log.events.length
    rt.send({ type: 'response.create', response: { output_modalities: ['text'] } })
    const text = await log.next('response.done', { from })
    expect(text.response).toMatchObject({ status: 'completed', output_modalities: ['text'] })
    expect(log.of('response.output_text.delta', from).length).toBeGreaterThan(0)
    expect(log.of('response.output_audio.delta', from)).toEqual([])
    expect(log.of('error')).toEqual([])
    rt.close()
  }, 120_000)

  it('a client that vanishes mid-response leaves no upstream work running', async () => {
    const { rt, log } = await open('primary')
    rt.send({ type: 'session.update', session: { type: 'realtime', max_output_tokens: 300 } })
    rt.send({
      type: 'conversation.item.create',
      item: {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Tell me a long story.' }],
      },
    })
    rt.send({ type: 'response.create' })
    await log.next('response.output_audio.delta')
    const busy = await Promise.all([slot('primary'), slot('tts')])
    expect(busy.map((s) => s.inflight).reduce((a, b) => a + b)).toBeGreaterThan(0)
    rt.socket.terminate()
    const deadline = Date.now() + 5_000
    let after: SlotBody[] = busy
    while (Date.now() < deadline) {
      after = await Promise.all([slot('primary'), slot('tts'), slot('stt')])
      if (after.every((s) => s.inflight === 0)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(after.map((s) => [s.name, s.inflight])).toEqual([
      ['primary', 0],
      ['tts', 0],
      ['stt', 0],
    ])
    // llama-server itself is generating nothing.
    const { base, pid } = after[0]!.upstream ?? {}
    const res = await fetch(`${base}/slots`, { headers: await llamaKeyHeaders(pid!) })
    const slots = (await res.json()) as { is_processing: boolean }[]
    expect(slots.map((s) => s.is_processing)).toEqual(slots.map(() => false))
  }, 120_000)

  it('server VAD: each spoken turn is found, committed and transcribed in order', async () => {
    const { rt, log } = await open('stt')
    rt.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            transcription: { model: 'stt' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
          },
        },
      },
    })
    await log.next('session.updated')
    const first = await speechPcm('Hello there, my friend.', dir, 'first')
    const second = await speechPcm('How are you today?', dir, 'second')
    sendAudio(rt, Buffer.concat([first, silencePcm(1500), second, silencePcm(1500)]))
    const done = await log.next('conversation.item.input_audio_transcription.completed', {
      match: () => log.of('conversation.item.input_audio_transcription.completed').length === 2,
    })
    expect(done).toBeDefined()
    const started = log.of('input_audio_buffer.speech_started')
    const stopped = log.of('input_audio_buffer.speech_stopped')
    const committed = log.of('input_audio_buffer.committed')
    expect([started.length, stopped.length, committed.length]).toEqual([2, 2, 2])
    // The turns fall where the speech was: the second starts after the first's pause.
    const firstMs = (first.byteLength / 48_000) * 1000
    expect(Number(stopped[0]!.audio_end_ms)).toBeLessThan(firstMs + 300)
    expect(Number(started[1]!.audio_start_ms)).toBeGreaterThan(firstMs + 1500 - 300)
    expect(committed.map((c) => c.item_id)).toEqual(started.map((s) => s.item_id))
    const completed = log.of('conversation.item.input_audio_transcription.completed')
    expect(completed.map((c) => c.item_id)).toEqual(committed.map((c) => c.item_id))
    expect(log.of('error')).toEqual([])
    rt.close()
  }, 120_000)

  it('barge-in: speech while a response plays cancels it', async () => {
    const { rt, log } = await open('primary')
    rt.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        max_output_tokens: 300,
        audio: {
          input: { turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true } },
        },
      },
    })
    await log.next('session.updated')
    sendAudio(rt, Buffer.concat([speech, silencePcm(1000)]))
    const created = await log.next('response.created')
    await log.next('response.output_audio.delta')
    const from = log.events.length
    sendAudio(rt, Buffer.concat([speech, silencePcm(1000)]))
    await log.next('input_audio_buffer.speech_started', { from })
    const done = await log.next('response.done', {
      match: (e) => (e.response as { id: string }).id === (created.response as { id: string }).id,
    })
    expect(done.response).toMatchObject({
      status: 'cancelled',
      status_details: { type: 'cancelled', reason: 'turn_detected' },
    })
    // The new turn is answered in its turn.
    const next = await log.next('response.created', { from })
    expect((next.response as { id: string }).id).not.toBe((created.response as { id: string }).id)
    rt.close()
  }, 120_000)
})
