/**
 * The tts slot's translator for `/v1/audio/speech`: what svc does itself instead of relaying the
 * request to the engine.
 *
 * - A text of several sentences, or `stream_format: "sse"`: streamed piece by piece (the first
 *   sentence alone, then growing groups of sentences: sentences.ts `streamPieces`; speech-stream.ts), by whichever engine the slot holds: the OpenAI-compatible ones (espeak-ng,
 *   Kokoro) through their `/v1/audio/speech`, the cloning engine (Chatterbox) through the cloning
 *   translator's engine call, with an uploaded voice's reference each time.
 * - One sentence without SSE: as before streaming existed: the cloning translator's for an uploaded
 *   voice or the cloning engine, and for every other request the translator does not apply at all
 *   (the dispatcher relays it to the engine byte for byte).
 */
import type { ModelEntry } from '@svc/core'
import { SvcError } from '@svc/core'
import type { TranslateRequest, Translator } from '../contract'
import type { CloningSpeech } from './cloning-speech'
import { hasSeveralSentences, splitSentences, streamPieces } from './sentences'
import { openaiEngineWav } from './speech-engine'
import { checkStreamFormat, type SpeakSentence, streamSpeech } from './speech-stream'
import { isSpeechFormat } from './wav-encode'

export interface SpeechTranslatorOptions {
  /** The cloning engine's translator, when svc keeps uploaded voices. */
  cloning?: CloningSpeech
  /** The `model` an OpenAI-compatible engine wants for `model`, when not svc's name (Kokoro). */
  upstreamModel(model: ModelEntry): string | undefined
  /** ffmpeg, for mp3/opus/aac/flac. Default `ffmpeg` on PATH. */
  ffmpeg?: string
}

export function createSpeechTranslator(options: SpeechTranslatorOptions): Translator {
  const { cloning } = options
  const clonesFor = async (request: Pick<TranslateRequest, 'endpoint' | 'model' | 'body'>) =>
    cloning !== undefined && ((await cloning.appliesTo?.(request)) ?? true)
  return {
    endpoints: ['speech'],
    async appliesTo(request) {
      const { body } = request
      if (body.stream_format === 'sse') return true
      if (typeof body.input === 'string' && hasSeveralSentences(body.input)) return true
      return clonesFor(request)
    },
    async handle(request) {
      const sse = checkStreamFormat(request.body.stream_format) === 'sse'
      const input = String(request.body.input ?? '')
      const sentences = splitSentences(input)
      const clones = await clonesFor(request)
      if (clones && cloning && !sse && sentences.length <= 1) return cloning.handle(request)
      const format = String(request.body.response_format ?? 'mp3')
      if (!isSpeechFormat(format))
        throw new SvcError('request.invalid', `response_format "${format}" is not supported`, {
          param: 'response_format',
        })
      const upstreamModel = options.upstreamModel(request.model)
      const speak: SpeakSentence =
        clones && cloning
          ? (text, signal) => cloning.wav(request, text, signal)
          : (text, signal) => openaiEngineWav(request, text, signal, upstreamModel)
      return streamSpeech({
        // A text with nothing sayable ("…") is the engine's to judge, as one piece.
        pieces: sentences.length > 0 ? streamPieces(sentences) : [input],
        speak,
        format,
        sse,
        signal: request.signal,
        inputCharacters: [...input].length,
        ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
      })
    },
  }
}
