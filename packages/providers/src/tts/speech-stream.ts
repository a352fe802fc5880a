/**
 * Streaming speech for engines that take whole texts: the input's sentences (sentences.ts; the
 * first alone, then in growing groups) are synthesised one piece after another and each piece's
 * audio is sent as soon as it is ready, so the first bytes leave long before the whole text is spoken.
 *
 * Each piece is asked of the engine as WAV and turned into OpenAI's `pcm` (s16le mono 24 kHz,
 * wav-to-pcm24k.ts); the stream of those is then the answer in the asked `response_format`:
 * - `pcm`: the samples as they are;
 * - `wav`: one header with unknown length (sizes 0xFFFFFFFF, as OpenAI streams it), then the samples;
 * - `mp3`, `opus`, `aac`, `flac`: one ffmpeg encoding the whole stream (wav-encode.ts), so the answer
 *   is one valid file of that format (one Ogg stream, one FLAC stream), not pieces glued together.
 *
 * With `stream_format: "sse"` the same bytes go out as OpenAI's `speech.audio.delta` events (base64)
 * and a closing `speech.audio.done`.
 *
 * The stream pulls: one piece is synthesised ahead of what the client has read, no more. The first
 * piece is synthesised before the answer starts, so an engine's refusal (an unknown voice) is still
 * a clean error; a failure later cuts the stream short. When the client goes away (`signal`) or stops
 * reading, the engine request in flight is aborted and no further piece is asked for.
 */
import { SvcError } from '@svc/core'
import { wavHeader } from '../audio/wav'
import { encodeWavResponse, type SpeechFormat } from './wav-encode'
import { PCM_RATE, wavToPcm24k } from './wav-to-pcm24k'

/** Asks the engine for one piece of text; resolves with its WAV (an ok Response) or throws `SvcError`. */
export type SpeakSentence = (text: string, signal: AbortSignal) => Promise<Response>

export interface SpeechStreamOptions {
  /** The texts to ask the engine for, in order (sentences, or groups of them). */
  pieces: readonly string[]
  speak: SpeakSentence
  format: SpeechFormat
  /** `stream_format: "sse"`: OpenAI's speech events instead of bare audio. */
  sse: boolean
  /** Aborts when the client goes away. */
  signal: AbortSignal
  /** For `speech.audio.done`'s usage: svc counts speech input in characters (no tokenizer). */
  inputCharacters: number
  ffmpeg?: string
}

/** Largest `speech.audio.delta` payload (bytes before base64). */
const SSE_CHUNK_BYTES = 16 * 1024

/** The streamed answer (see the file's comment). Rejects when the first piece fails. */
export async function streamSpeech(options: SpeechStreamOptions): Promise<Response> {
  const stop = new AbortController()
  const signal = AbortSignal.any([options.signal, stop.signal])
  const audio = await piecePcm(options.pieces, options.speak, signal, () => stop.abort())
  const { format } = options
  let body: ReadableStream<Uint8Array>
  let type: string
  if (format === 'pcm' || format === 'wav') {
    body = format === 'wav' ? prepend(wavHeader(PCM_RATE), audio) : audio
    type = format === 'wav' ? 'audio/wav' : 'audio/pcm'
  } else {
    const encoded = await encodeWavResponse({
      wav: prepend(wavHeader(PCM_RATE), audio),
      format,
      signal,
      ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
    }).catch((error: unknown) => {
      stop.abort()
      throw error
    })
    body = encoded.body ?? new ReadableStream({ start: (c) => c.close() })
    type = encoded.headers.get('content-type') ?? 'application/octet-stream'
  }
  if (!options.sse)
    return new Response(body, { headers: { 'content-type': type, 'cache-control': 'no-store' } })
  return new Response(
    speechEvents(body, options.inputCharacters, () => stop.abort()),
    {
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' },
    },
  )
}

/** Each piece's audio as s16le 24 kHz mono, in order; the first one read before this resolves. */
async function piecePcm(
  pieces: readonly string[],
  speak: SpeakSentence,
  signal: AbortSignal,
  abort: () => void,
): Promise<ReadableStream<Uint8Array>> {
  let next = 0
  const one = async (): Promise<Uint8Array> => {
    const text = pieces[next++] as string
    const res = await speak(text, signal)
    return wavToPcm24k(new Uint8Array(await res.arrayBuffer()))
  }
  const first = await one()
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first)
      if (next >= pieces.length) controller.close()
    },
    async pull(controller) {
      try {
        controller.enqueue(await one())
        if (next >= pieces.length) controller.close()
      } catch (error) {
        abort()
        controller.error(error)
      }
    },
    cancel: abort,
  })
}

function prepend(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = rest.getReader()
  let sent = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true
        controller.enqueue(head)
        return
      }
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** OpenAI's speech events over `audio`: deltas of at most {@link SSE_CHUNK_BYTES}, then done. */
function speechEvents(
  audio: ReadableStream<Uint8Array>,
  inputCharacters: number,
  abort: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const event = (data: { type: string; [field: string]: unknown }) =>
    encoder.encode(`${data.type === 'error' ? 'event: error\n' : ''}data: ${JSON.stringify(data)}\n\n`)
  const reader = audio.getReader()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch (error) {
        // Headers are gone: the failure is an event the SDK raises (`error`), then the end.
        const e =
          error instanceof SvcError
            ? error
            : new SvcError('upstream.error', `speech synthesis failed: ${String(error)}`, { status: 502 })
        controller.enqueue(event({ type: 'error', ...e.toBody() }))
        controller.close()
        return
      }
      const { done, value } = read
      if (done) {
        const usage = { input_tokens: inputCharacters, output_tokens: 0, total_tokens: inputCharacters }
        controller.enqueue(event({ type: 'speech.audio.done', usage }))
        controller.close()
        return
      }
      for (let at = 0; at < value.length; at += SSE_CHUNK_BYTES) {
        const piece = Buffer.from(
          value.buffer,
          value.byteOffset + at,
          Math.min(SSE_CHUNK_BYTES, value.length - at),
        )
        controller.enqueue(event({ type: 'speech.audio.delta', audio: piece.toString('base64') }))
      }
    },
    cancel: (reason) => {
      abort()
      return reader.cancel(reason)
    },
  })
}

/** 400 for a `stream_format` that is neither `audio` nor `sse`. */
export function checkStreamFormat(value: unknown): 'audio' | 'sse' {
  if (value === undefined || value === 'audio') return 'audio'
  if (value === 'sse') return 'sse'
  throw new SvcError('request.invalid', 'stream_format must be "audio" or "sse"', { param: 'stream_format' })
}
