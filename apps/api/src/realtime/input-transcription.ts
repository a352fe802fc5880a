/**
 * A committed user audio item's transcript: the segment as a WAV to the stt model through svc's own
 * `/v1/audio/transcriptions` (streamed when the server streams), with
 * `conversation.item.input_audio_transcription.delta` / `.completed` (or `.failed`) and then
 * `conversation.item.done`. Runs after `after` (the previous commit's), so a session's transcripts
 * arrive in commit order. Never rejects: a failed transcription answers ''.
 */
import { pcm16Wav } from '@svc/providers'
import type { ServerEvent } from './response-runner'
import { SelfCallError, type SelfClient } from './self-client'

export interface TranscribeItemOptions {
  client: SelfClient
  send: (event: ServerEvent) => void
  itemId: string
  /** pcm16 mono at `rate` Hz. */
  pcm: Uint8Array
  rate: number
  /** The session's `audio.input.transcription`; `null`: transcribe, but send no transcription events. */
  transcription: { model: string; language?: string; prompt?: string } | null
  signal: AbortSignal
  after: Promise<unknown>
}

/** The user item as the conversation shows it. */
export function userAudioItem(itemId: string, transcript: string | null) {
  return {
    id: itemId,
    object: 'realtime.item',
    type: 'message',
    status: 'completed',
    role: 'user',
    content: [{ type: 'input_audio', transcript }],
  }
}

export function transcribeItem(options: TranscribeItemOptions): Promise<string> {
  const { send, itemId, signal } = options
  const events = options.transcription !== null
  const base = { item_id: itemId, content_index: 0 }
  const seconds = options.pcm.byteLength / (options.rate * 2)
  return options.after.then(async () => {
    try {
      const text = await options.client.transcribe(
        pcm16Wav(options.pcm, options.rate),
        { ...(options.transcription ?? { model: 'stt' }), signal },
        events
          ? (delta) => send({ type: 'conversation.item.input_audio_transcription.delta', ...base, delta })
          : undefined,
      )
      if (events) {
        send({
          type: 'conversation.item.input_audio_transcription.completed',
          ...base,
          transcript: text,
          usage: { type: 'duration', seconds },
        })
      }
      send({ type: 'conversation.item.done', previous_item_id: null, item: userAudioItem(itemId, text) })
      return text
    } catch (error) {
      const e =
        error instanceof SelfCallError
          ? error
          : new SelfCallError('upstream.error', String(error), null, 'server_error')
      if (!signal.aborted) {
        send({
          type: 'conversation.item.input_audio_transcription.failed',
          ...base,
          error: { type: e.type, code: e.code, message: e.message, param: e.param },
        })
      }
      return ''
    }
  })
}
