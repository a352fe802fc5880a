/**
 * Streaming transcription (`stream=true` on `/v1/audio/transcriptions` and `/translations`), as the
 * stt provider's translator: the upload is decoded (ffmpeg → 16 kHz mono), cut at its pauses by the
 * VAD, and each speech segment is sent, as WAV, to the slot's whisper-server in order while the VAD
 * goes on looking for the next one. The answer is OpenAI's Server-Sent Events: one
 * `transcript.text.delta` per segment as soon as whisper-server has it, then `transcript.text.done`
 * with the whole text and `usage` (`{type: "duration", seconds}`, the audio's length).
 *
 * Errors found before the answer starts (no file, a `response_format` that cannot stream, audio that
 * does not decode) are thrown as `SvcError`, so the client gets svc's JSON error; after that an
 * error ends the stream with an `error` event carrying the same body. When the client goes away
 * (`signal`), no further segment is sent and the VAD stops.
 */
import { SvcError, type TranslateRequest, type Translator } from '@svc/core'
import { DECODE_SAMPLE_RATE, decodeAudio } from '../audio/decode-audio'
import { type SpeechSegment, splitAtPauses } from '../audio/split-at-pauses'
import { encodeWav } from '../audio/wav'
import { normaliseWhisperError } from './whisper-errors'

/** The response formats a stream can carry (text deltas); whisper-1's others cannot be streamed. */
const STREAMABLE = new Set(['json', 'text'])
/** Fields passed on to whisper-server with each segment. */
const PASSED = ['language', 'prompt', 'temperature'] as const

export interface TranscriptionStreamOptions {
  /** The ffmpeg program that decodes uploads (default `ffmpeg` on PATH). */
  ffmpeg?: string
}

/** Whether a form field says yes (`true`, as the OpenAI SDKs send a boolean in a form). */
const yes = (value: unknown) =>
  value === true || (typeof value === 'string' && value.toLowerCase() === 'true')

/**
 * The translator that takes a transcription or translation upload with `stream=true`; any other
 * request goes to whisper-server unchanged. `path` is whisper-server's inference path.
 */
export function createTranscriptionStream(
  path: string,
  options: TranscriptionStreamOptions = {},
): Translator {
  return {
    endpoints: ['transcriptions', 'translations'],
    appliesTo: ({ body }) => yes(body.stream),
    handle: (request) => streamTranscription(request, path, options),
  }
}

async function streamTranscription(
  request: TranslateRequest,
  path: string,
  options: TranscriptionStreamOptions,
): Promise<Response> {
  const { body, signal } = request
  const file = body.file
  if (!(file instanceof Blob)) {
    throw new SvcError('request.invalid', 'file is required (the audio, as a form file field)', {
      param: 'file',
    })
  }
  const format = typeof body.response_format === 'string' ? body.response_format : 'json'
  if (!STREAMABLE.has(format)) {
    throw new SvcError(
      'request.invalid',
      `response_format "${format}" cannot be streamed: use json or text with stream=true, or leave stream out`,
      { param: 'response_format' },
    )
  }
  const samples = await decodeAudio(new Uint8Array(await file.arrayBuffer()), {
    signal,
    ffmpeg: options.ffmpeg,
  })
  const fields: Record<string, string> = { response_format: 'json' }
  for (const name of PASSED) if (typeof body[name] === 'string') fields[name] = body[name]
  if (request.endpoint === 'translations') fields.translate = 'true'
  const url = new URL(path, request.base)

  const stop = new AbortController()
  const onGone = () => stop.abort(signal.reason)
  signal.addEventListener('abort', onGone, { once: true })
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (data: unknown, event?: string) =>
        controller.enqueue(
          encoder.encode(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`),
        )
      try {
        let text = ''
        await transcribeInOrder(samples, stop.signal, async (segment) => {
          const piece = await transcribeSegment(url, segment, fields, stop.signal)
          if (!piece) return
          const delta = text ? ` ${piece}` : piece
          text += delta
          send({ type: 'transcript.text.delta', delta })
        })
        const seconds = Math.round((samples.length / DECODE_SAMPLE_RATE) * 1000) / 1000
        send({ type: 'transcript.text.done', text, usage: { type: 'duration', seconds } })
      } catch (error) {
        if (stop.signal.aborted) return controller.error(stop.signal.reason)
        send({ type: 'error', ...asSvcError(error).toBody() }, 'error')
      } finally {
        signal.removeEventListener('abort', onGone)
      }
      controller.close()
    },
    cancel(reason) {
      stop.abort(reason)
    },
  })
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
  })
}

/**
 * Runs the VAD over `samples` and `transcribe` on each segment in order, one at a time, each as
 * soon as the VAD has found it (the VAD goes on meanwhile). Rejects with the first failure, after
 * stopping the rest.
 */
async function transcribeInOrder(
  samples: Float32Array,
  signal: AbortSignal,
  transcribe: (segment: SpeechSegment) => Promise<void>,
): Promise<void> {
  const failed = new AbortController()
  const both = AbortSignal.any([signal, failed.signal])
  let chain = Promise.resolve()
  const segments = splitAtPauses(samples, {
    signal: both,
    onSegment: (segment) => {
      chain = chain.then(() => (both.aborted ? undefined : transcribe(segment)))
      chain.catch((error: unknown) => failed.abort(error))
    },
  })
  // The VAD's own failure (or an abort) first; then whatever the transcriptions still have to do.
  await segments.catch((error: unknown) => {
    throw failed.signal.aborted ? failed.signal.reason : error
  })
  await chain
}

/** One segment's text from whisper-server, trimmed. */
async function transcribeSegment(
  url: URL,
  segment: SpeechSegment,
  fields: Record<string, string>,
  signal: AbortSignal,
): Promise<string> {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  const wav = encodeWav(segment.audio, DECODE_SAMPLE_RATE)
  form.set('file', new Blob([wav], { type: 'audio/wav' }), `segment-${segment.startMs}.wav`)
  let res: Response
  try {
    res = await fetch(url, { method: 'POST', body: form, signal }).catch((error: unknown) => {
      // whisper-server closes kept-alive connections on its own; a reused one that it closed fails
      // before any answer, and the request is safe to send once more on a new one.
      if (signal.aborted) throw error
      return fetch(url, { method: 'POST', body: form, signal })
    })
  } catch (error) {
    if (signal.aborted) throw error
    const cause = (error as { cause?: { message?: string } }).cause?.message
    throw new SvcError(
      'upstream.unavailable',
      `whisper-server could not be reached: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
    )
  }
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {}
  if (!res.ok) {
    throw (
      normaliseWhisperError(res.status, parsed) ??
      new SvcError('upstream.error', `whisper-server answered ${res.status}: ${text.slice(0, 200)}`, {
        status: res.status >= 500 ? 502 : res.status,
      })
    )
  }
  const value =
    typeof parsed === 'object' && parsed !== null ? (parsed as { text?: unknown }).text : undefined
  return typeof value === 'string' ? value.trim() : ''
}

function asSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error
  return new SvcError('internal.error', 'the transcription stream failed')
}
