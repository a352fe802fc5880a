/**
 * Errors that are the caller's, in svc's words, through real engines (issue 39): a prompt longer than
 * the context llama-server runs with is 400 `context.too_long` (streamed or not) naming both sizes
 * and `ctx_size`; a text file sent for transcription to whisper-server is 400 `audio.unreadable`,
 * not 502 `upstream.error`.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  missingPart,
  startApiWithConfig,
  writeTinyGguf,
  writeTinyWhisper,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat, streamChat } from './chat-requests'
import { type ErrorBody, LIGHT_ARGS, llamaServerAvailable, loadOk } from './live'

const llama = llamaServerAvailable()
const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

describe.skipIf(!llama || !whisper)('the caller’s mistakes, in svc’s words', () => {
  let api: ApiProcess
  const long = 'hello world '.repeat(200) // ~2000 tokens against a context of 256

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-error-fixes-'))
    const [chat, stt] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' }),
      writeTinyWhisper(join(dir, 'tiny-whisper.bin')),
    ])
    api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS, stt: 'args = ["-t", "1"]\n' } })
    await Promise.all([loadOk(api, 'primary', chat.path), loadOk(api, 'stt', stt.path)])
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  const expectTooLong = (status: number, body: ErrorBody) => {
    expect(status).toBe(400)
    expect(body.error).toMatchObject({ code: 'context.too_long', type: 'invalid_request_error' })
    expect(body.error.message).toMatch(
      /the prompt has \d{3,} tokens; the model runs with a context of 256 tokens/,
    )
    expect(body.error.message).toContain('ctx_size')
  }

  it('answers a prompt over the context as 400 context.too_long', async () => {
    const r = await sendChat<ErrorBody>(api, { model: 'primary', content: long, max_tokens: 4 })
    expectTooLong(r.status, r.body)
  }, 30_000)

  it('answers it the same way when the request asked for a stream', async () => {
    const res = await streamChat(api, { model: 'primary', content: long, max_tokens: 4 })
    expectTooLong(res.status, (await res.json()) as ErrorBody)
  }, 30_000)

  it('answers a text file sent for transcription as 400 audio.unreadable', async () => {
    const form = new FormData()
    form.append('model', 'stt')
    form.append(
      'file',
      new Blob(['these are notes, not audio\n'.repeat(20)], { type: 'text/plain' }),
      'notes.txt',
    )
    const res = await fetch(`${api.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      error: {
        code: 'audio.unreadable',
        message: 'the file is not audio svc can read (wav, mp3, ogg, flac, m4a, webm…)',
        type: 'invalid_request_error',
        param: 'file',
      },
    })
  }, 30_000)
})
