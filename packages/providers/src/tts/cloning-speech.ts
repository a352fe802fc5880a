/**
 * `/v1/audio/speech` for the voice-cloning engine, Chatterbox TTS API (docs/providers.md, "tts";
 * github.com/travisvn/chatterbox-tts-api). svc keeps the voice references (see voice-store.ts) and
 * hands one to the server with each request that names it:
 *
 * - `voice` names a voice uploaded to svc → `POST /v1/audio/speech/upload` (multipart) with the
 *   reference as `voice_file`: the server clones it for this request and keeps nothing;
 * - any other `voice` (its own library, OpenAI names, which it maps to its default sample) →
 *   `POST /v1/audio/speech` (JSON).
 *
 * Chatterbox always answers WAV and ignores `speed`; svc encodes the WAV into the `response_format`
 * asked for (default mp3, like OpenAI) with ffmpeg. Its `exaggeration`, `cfg_weight` and
 * `temperature` pass through. This translator answers one text in one piece; streaming (several
 * sentences, `stream_format: "sse"`) is speech-translator.ts's, which asks {@link CloningSpeech.wav}
 * sentence by sentence. An engine that cannot clone (espeak-ng, Kokoro) asked for an uploaded voice
 * gets a 400 that says so.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { type ModelEntry, SvcError } from '@svc/core'
import type { TranslateRequest, Translator } from '../contract'
import { engineError, fetchEngine } from './speech-engine'
import type { VoiceStore } from './voice-store'
import { encodeWavResponse, isSpeechFormat } from './wav-encode'

/** Chatterbox's own request fields that svc passes on. */
const ENGINE_FIELDS = ['exaggeration', 'cfg_weight', 'temperature'] as const

export interface CloningSpeechOptions {
  voices: VoiceStore
  /** Whether the model is the cloning engine's. */
  clones(model: ModelEntry): boolean
  /** The ffmpeg binary. Default `ffmpeg` on PATH. */
  ffmpeg?: string
}

/** The voice name a speech request names (`"alice"` or `{"id": "alice"}`), if any. */
export function requestedVoice(body: Record<string, unknown>): string | undefined {
  const voice = body.voice
  if (typeof voice === 'string') return voice
  if (voice && typeof voice === 'object' && typeof (voice as { id?: unknown }).id === 'string')
    return (voice as { id: string }).id
  return undefined
}

/** The cloning translator, and its engine call for one text (what streaming asks per sentence). */
export interface CloningSpeech extends Translator {
  /**
   * `text` spoken by the cloning engine in the request's voice, as the engine's WAV (an ok Response).
   * Throws 400 when the slot's model cannot clone, and the engine's refusals as svc's errors.
   */
  wav(request: TranslateRequest, text: string, signal: AbortSignal): Promise<Response>
}

export function createCloningSpeech(options: CloningSpeechOptions): CloningSpeech {
  const { voices } = options
  const refuseNonCloning = (request: TranslateRequest) => {
    if (options.clones(request.model)) return
    throw new SvcError(
      'request.invalid',
      `voice "${requestedVoice(request.body)}" is an uploaded voice, but "${request.model.id}" in the tts slot cannot clone voices; load a voice-cloning model (svc slot load tts --model chatterbox)`,
      { param: 'voice' },
    )
  }
  const wav = async (request: TranslateRequest, text: string, signal: AbortSignal) => {
    refuseNonCloning(request)
    const name = requestedVoice(request.body)
    const uploaded = name ? await voices.get(name) : undefined
    const res = uploaded
      ? await speakWithReference(request, text, uploaded, signal)
      : await fetchEngine(
          request.base,
          '/v1/audio/speech',
          {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              input: text,
              ...(name ? { voice: name } : {}),
              ...engineFields(request.body),
            }),
          },
          signal,
        )
    if (!res.ok) throw await engineError(res)
    if (!res.body) throw new SvcError('upstream.error', 'the speech engine sent no audio', { status: 502 })
    return res
  }
  return {
    wav,
    endpoints: ['speech'],
    async appliesTo({ model, body }) {
      if (options.clones(model)) return true
      const name = requestedVoice(body)
      return name !== undefined && (await voices.get(name)) !== undefined
    },
    async handle(request) {
      refuseNonCloning(request)
      if (request.body.stream_format === 'sse')
        throw new SvcError('request.invalid', 'stream_format "sse" is not supported; use "audio"', {
          param: 'stream_format',
        })
      const format = String(request.body.response_format ?? 'mp3')
      if (!isSpeechFormat(format))
        throw new SvcError('request.invalid', `response_format "${format}" is not supported`, {
          param: 'response_format',
        })
      const res = await wav(request, String(request.body.input), request.signal)
      return encodeWavResponse({
        wav: res.body as ReadableStream<Uint8Array>,
        format,
        signal: request.signal,
        ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
      })
    },
  }
}

async function speakWithReference(
  request: TranslateRequest,
  text: string,
  voice: { name: string; path: string; content_type: string },
  signal: AbortSignal,
): Promise<Response> {
  const form = new FormData()
  form.set('input', text)
  for (const [key, value] of Object.entries(engineFields(request.body))) form.set(key, String(value))
  const reference = new Blob([await readFile(voice.path)], { type: voice.content_type })
  form.set('voice_file', reference, basename(voice.path))
  return fetchEngine(request.base, '/v1/audio/speech/upload', { body: form }, signal)
}

function engineFields(body: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const key of ENGINE_FIELDS) if (typeof body[key] === 'number') out[key] = body[key] as number
  return out
}
