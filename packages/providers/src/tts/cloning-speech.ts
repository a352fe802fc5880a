/**
 * `/v1/audio/speech` for the voice-cloning engine, Chatterbox TTS API (PROVIDERS.md §5.2;
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
 * `temperature` pass through. `stream_format: "sse"` is refused, as for svc's other speech engines.
 * An engine that cannot clone (espeak-ng, Kokoro) asked for an uploaded voice gets a 400 that says so.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { type ModelEntry, SvcError } from '@svc/core'
import type { TranslateRequest, Translator } from '../contract'
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

export function createCloningSpeech(options: CloningSpeechOptions): Translator {
  const { voices } = options
  return {
    endpoints: ['speech'],
    async appliesTo({ model, body }) {
      if (options.clones(model)) return true
      const name = requestedVoice(body)
      return name !== undefined && (await voices.get(name)) !== undefined
    },
    async handle(request) {
      const name = requestedVoice(request.body)
      if (!options.clones(request.model)) {
        throw new SvcError(
          'request.invalid',
          `voice "${name}" is an uploaded voice, but "${request.model.id}" in the tts slot cannot clone voices; load a voice-cloning model (svc slot load tts --model chatterbox)`,
          { param: 'voice' },
        )
      }
      if (request.body.stream_format === 'sse')
        throw new SvcError('request.invalid', 'stream_format "sse" is not supported; use "audio"', {
          param: 'stream_format',
        })
      const format = String(request.body.response_format ?? 'mp3')
      if (!isSpeechFormat(format))
        throw new SvcError('request.invalid', `response_format "${format}" is not supported`, {
          param: 'response_format',
        })
      const uploaded = name ? await voices.get(name) : undefined
      const res = uploaded
        ? await speakWithReference(request, uploaded)
        : await fetchUpstream(request, '/v1/audio/speech', {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              input: request.body.input,
              ...(name ? { voice: name } : {}),
              ...engineFields(request.body),
            }),
          })
      if (!res.ok) throw await engineError(res)
      if (!res.body) throw new SvcError('upstream.error', 'the speech engine sent no audio', { status: 502 })
      return encodeWavResponse({
        wav: res.body,
        format,
        signal: request.signal,
        ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
      })
    },
  }
}

async function speakWithReference(
  request: TranslateRequest,
  voice: { name: string; path: string; content_type: string },
): Promise<Response> {
  const form = new FormData()
  form.set('input', String(request.body.input))
  for (const [key, value] of Object.entries(engineFields(request.body))) form.set(key, String(value))
  const reference = new Blob([await readFile(voice.path)], { type: voice.content_type })
  form.set('voice_file', reference, basename(voice.path))
  return fetchUpstream(request, '/v1/audio/speech/upload', { body: form })
}

function engineFields(body: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const key of ENGINE_FIELDS) if (typeof body[key] === 'number') out[key] = body[key] as number
  return out
}

async function fetchUpstream(
  request: TranslateRequest,
  path: string,
  init: { headers?: Record<string, string>; body: string | FormData },
): Promise<Response> {
  try {
    return await fetch(new URL(path, request.base), { method: 'POST', ...init, signal: request.signal })
  } catch (error) {
    if (request.signal.aborted) throw error
    throw new SvcError(
      'upstream.unavailable',
      `the speech engine did not answer: ${(error as Error).message}`,
    )
  }
}

/** Chatterbox's error bodies (`{"error":{message,type}}`, FastAPI's 422 `{"detail":[…]}`) as svc errors. */
async function engineError(res: Response): Promise<SvcError> {
  const text = (await res.text()).slice(0, 4000)
  let message = text.trim() || `HTTP ${res.status}`
  let param: string | null = null
  try {
    const body = JSON.parse(text) as {
      error?: { message?: string }
      detail?: { loc?: unknown[]; msg?: string }[] | string
    }
    if (body.error?.message) message = body.error.message
    else if (Array.isArray(body.detail) && body.detail[0]) {
      const loc = body.detail[0].loc ?? []
      param = typeof loc.at(-1) === 'string' ? (loc.at(-1) as string) : null
      message = `${param ?? 'request'}: ${body.detail[0].msg ?? 'invalid'}`
    } else if (typeof body.detail === 'string') message = body.detail
  } catch {
    // not JSON: the text is the message
  }
  message = `speech engine: ${message}`
  if (res.status === 400 || res.status === 422) return new SvcError('request.invalid', message, { param })
  return new SvcError('upstream.error', `${message} (HTTP ${res.status})`, { status: 502 })
}
