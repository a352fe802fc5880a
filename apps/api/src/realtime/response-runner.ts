/**
 * One response of a realtime session: the conversation so far → a streamed chat completion on the
 * chat model → `response.output_text.delta`, or (audio) `response.output_audio_transcript.delta` with
 * each finished sentence spoken on the tts model (`response_format: "pcm"`, in order, the next
 * sentence's speech asked for while the model still writes) → `response.output_audio.delta`. Ends
 * with `response.done`: `completed`, `cancelled` (cancel: `response.cancel`, barge-in, the client
 * gone) or `failed` (with an `error` event carrying svc's code). Cancelling aborts every request the
 * response has open.
 */
import { randomUUID } from 'node:crypto'
import { type ChatMessage, SelfCallError, type SelfClient } from './self-client'
import { PCM_FORMAT } from './session-config'

/** Largest `response.output_audio.delta`, in bytes of pcm16 (0.5 s at 24 kHz). */
const AUDIO_DELTA_BYTES = 24_000

export type ServerEvent = Record<string, unknown> & { type: string }

export interface ResponseOptions {
  client: SelfClient
  send: (event: ServerEvent) => void
  /** The conversation to answer (waits for pending input transcripts). */
  messages: (signal: AbortSignal) => Promise<ChatMessage[]>
  model: string
  modalities: ('text' | 'audio')[]
  maxOutputTokens: number | 'inf'
  ttsModel: string
  voice: string
  speed: number
  /** Called with the assistant's item once the response has one (to add it to the conversation). */
  onItem: (item: { id: string; text: string }) => void
  /** The item the assistant's item follows in the conversation. */
  previousItemId: string | null
}

export interface RunningResponse {
  id: string
  /** Cancels it (`reason`: OpenAI's `status_details.reason`); `done` then settles with `cancelled`. */
  cancel(reason: 'client_cancelled' | 'turn_detected'): void
  done: Promise<void>
}

export function runResponse(options: ResponseOptions): RunningResponse {
  const { send, client } = options
  const id = `resp_${randomUUID().replaceAll('-', '').slice(0, 20)}`
  const itemId = `item_${randomUUID().replaceAll('-', '').slice(0, 20)}`
  const abort = new AbortController()
  let cancelReason: string | undefined
  const audio = options.modalities.includes('audio')
  const base = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 }
  const shell = (status: string, output: unknown[], statusDetails: unknown = null) => ({
    id,
    object: 'realtime.response',
    status,
    status_details: statusDetails,
    output,
    conversation_id: 'conv_default',
    output_modalities: options.modalities,
    max_output_tokens: options.maxOutputTokens,
    audio: { output: { format: PCM_FORMAT, voice: options.voice } },
    usage: null,
    metadata: null,
  })
  const item = (status: string, text: string) => ({
    id: itemId,
    object: 'realtime.item',
    type: 'message',
    status,
    role: 'assistant',
    content:
      text || status === 'completed'
        ? [audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }]
        : [],
  })

  send({ type: 'response.created', response: shell('in_progress', []) })

  const done = (async () => {
    let text = ''
    let started = false
    try {
      const messages = await options.messages(abort.signal)
      send({
        type: 'response.output_item.added',
        response_id: id,
        output_index: 0,
        item: item('in_progress', ''),
      })
      send({
        type: 'conversation.item.added',
        previous_item_id: options.previousItemId,
        item: item('in_progress', ''),
      })
      const part = audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' }
      send({ type: 'response.content_part.added', ...base, part })
      started = true
      const speaker = audio
        ? createSpeaker(options, abort.signal, (delta) =>
            send({ type: 'response.output_audio.delta', ...base, delta }),
          )
        : undefined
      const max = options.maxOutputTokens === 'inf' ? {} : { max_tokens: options.maxOutputTokens }
      for await (const delta of client.chat({ model: options.model, messages, ...max }, abort.signal)) {
        text += delta
        send({
          type: audio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta',
          ...base,
          delta,
        })
        speaker?.write(delta)
      }
      await speaker?.end()
      if (audio) {
        send({ type: 'response.output_audio.done', ...base })
        send({ type: 'response.output_audio_transcript.done', ...base, transcript: text })
      } else send({ type: 'response.output_text.done', ...base, text })
      send({
        type: 'response.content_part.done',
        ...base,
        part: audio ? { type: 'audio', transcript: text } : { type: 'text', text },
      })
      const final = item('completed', text)
      send({ type: 'response.output_item.done', response_id: id, output_index: 0, item: final })
      send({ type: 'conversation.item.done', previous_item_id: options.previousItemId, item: final })
      options.onItem({ id: itemId, text })
      send({ type: 'response.done', response: shell('completed', [final]) })
    } catch (error) {
      if (started) options.onItem({ id: itemId, text })
      const output = started ? [item('incomplete', text)] : []
      if (cancelReason) {
        send({
          type: 'response.done',
          response: shell('cancelled', output, { type: 'cancelled', reason: cancelReason }),
        })
        return
      }
      const e =
        error instanceof SelfCallError
          ? error
          : new SelfCallError(
              'upstream.error',
              String((error as Error)?.message ?? error),
              null,
              'server_error',
            )
      send({
        type: 'error',
        error: { type: e.type, code: e.code, message: e.message, param: e.param, event_id: null },
      })
      send({
        type: 'response.done',
        response: shell('failed', output, { type: 'failed', error: { type: e.type, code: e.code } }),
      })
    } finally {
      abort.abort()
    }
  })()

  return {
    id,
    cancel(reason) {
      if (cancelReason) return
      cancelReason = reason
      abort.abort()
    },
    done,
  }
}

/**
 * Speaks text as it is written: each finished sentence (Intl.Segmenter) goes to the tts model in
 * order, its pcm bytes out as deltas (whole samples, at most AUDIO_DELTA_BYTES each).
 */
function createSpeaker(options: ResponseOptions, signal: AbortSignal, out: (base64: string) => void) {
  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })
  let pending = ''
  let chain: Promise<void> = Promise.resolve()
  let carry: Uint8Array | undefined
  const emit = (bytes: Uint8Array) => {
    let all = carry ? Buffer.concat([carry, bytes]) : bytes
    carry = undefined
    if (all.byteLength % 2) {
      carry = all.subarray(all.byteLength - 1)
      all = all.subarray(0, all.byteLength - 1)
    }
    for (let at = 0; at < all.byteLength; at += AUDIO_DELTA_BYTES)
      out(Buffer.from(all.subarray(at, at + AUDIO_DELTA_BYTES)).toString('base64'))
  }
  const speak = (sentence: string) => {
    if (!/[\p{L}\p{N}]/u.test(sentence)) return
    chain = chain.then(async () => {
      const body = {
        model: options.ttsModel,
        input: sentence.trim(),
        voice: options.voice,
        ...(options.speed !== 1 ? { speed: options.speed } : {}),
      }
      for await (const bytes of options.client.speak(body, signal)) emit(bytes)
    })
    // A failure is read at end(); until then later sentences are skipped by the rejected chain.
    chain.catch(() => {})
  }
  return {
    write(delta: string) {
      pending += delta
      const parts = [...segmenter.segment(pending)].map((s) => s.segment)
      if (parts.length < 2) return
      for (const sentence of parts.slice(0, -1)) speak(sentence)
      pending = parts.at(-1) ?? ''
    },
    async end() {
      speak(pending)
      pending = ''
      await chain
    },
  }
}
