/**
 * The stt provider's streaming translator on its own, over real espeak-ng speech: what a client gets
 * when whisper-server cannot be reached once the stream has started (an SSE `error` event with svc's
 * error body, the stream then ends), and the 400s it answers before any stream starts.
 */
import { createServer } from 'node:net'
import type { ModelEntry } from '@svc/core'
import { SvcError } from '@svc/core'
import { programAvailable, type SpokenPauses, speakWithPauses } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { createTranscriptionStream } from '../src/stt/transcription-stream'

const parts =
  programAvailable('espeak-ng', 'run ./scripts/setup.sh (apt: espeak-ng)') &&
  programAvailable('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)')

const MODEL: ModelEntry = {
  id: 'tiny',
  format: 'whisper',
  provider: 'stt',
  source: 'local',
  path: '/nowhere',
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe.skipIf(!parts)('the streaming transcription translator', () => {
  let spoken: SpokenPauses
  const stream = createTranscriptionStream('/v1/audio/transcriptions')
  const ask = async (body: Record<string, unknown>) =>
    stream.handle({
      endpoint: 'transcriptions',
      body: { stream: 'true', ...body },
      base: new URL(`http://127.0.0.1:${await closedPort()}`),
      model: MODEL,
      signal: new AbortController().signal,
    })

  beforeAll(async () => {
    spoken = await speakWithPauses(['Hello there.', 'Goodbye now.'], { pauseMs: 1000 })
  }, 60_000)

  it('takes only requests with stream=true', async () => {
    expect(
      await stream.appliesTo?.({ endpoint: 'transcriptions', model: MODEL, body: { stream: 'true' } }),
    ).toBe(true)
    expect(
      await stream.appliesTo?.({ endpoint: 'transcriptions', model: MODEL, body: { stream: 'false' } }),
    ).toBe(false)
    expect(await stream.appliesTo?.({ endpoint: 'transcriptions', model: MODEL, body: {} })).toBe(false)
  })

  it('ends the stream with an error event when whisper-server cannot be reached', async () => {
    const res = await ask({ file: new Blob([spoken.wav], { type: 'audio/wav' }) })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const text = await res.text()
    const blocks = text.trim().split('\n\n')
    expect(blocks).toHaveLength(1)
    expect(blocks[0]).toMatch(/^event: error\ndata: /)
    const data = JSON.parse(blocks[0]?.split('data: ')[1] ?? '{}')
    expect(data).toMatchObject({
      type: 'error',
      error: { code: 'upstream.unavailable', type: 'server_error' },
    })
  }, 120_000)

  it('refuses before the stream: no file, a format that cannot stream, bytes that are not audio', async () => {
    const refusal = (body: Record<string, unknown>) => ask(body).catch((e: unknown) => e)
    expect(await refusal({})).toMatchObject({ code: 'request.invalid', param: 'file' })
    const wav = new Blob([spoken.wav], { type: 'audio/wav' })
    for (const format of ['srt', 'vtt', 'verbose_json']) {
      expect(await refusal({ file: wav, response_format: format })).toMatchObject({
        code: 'request.invalid',
        param: 'response_format',
      })
    }
    const junk = await refusal({ file: new Blob(['not audio']) })
    expect(junk).toBeInstanceOf(SvcError)
    expect(junk).toMatchObject({ code: 'audio.unreadable', status: 400 })
  }, 60_000)
})
