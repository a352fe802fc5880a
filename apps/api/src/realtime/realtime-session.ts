/**
 * One realtime session (one WebSocket): reads client events, keeps the settings, the input audio
 * buffer and the conversation, and sends server events. A commit (by hand or at the end of a turn
 * the server VAD found) makes a user item and transcribes it on the stt model (input transcription
 * events, in commit order); `response.create` (or the end of a turn, in a realtime session) answers
 * the conversation (response-runner.ts). `close()` aborts everything the session has open.
 */
import { randomUUID } from 'node:crypto'
import { SvcError } from '@svc/core'
import { type ClientEvent, type MessageItem, parseClientEvent } from './client-events'
import { createInputAudioBuffer } from './input-audio-buffer'
import { transcribeItem, userAudioItem } from './input-transcription'
import { type RunningResponse, runResponse, type ServerEvent } from './response-runner'
import type { ChatMessage, SelfClient } from './self-client'
import { SelfCallError } from './self-client'
import { applySessionPatch, newSessionConfig, renderSession, type SessionConfig } from './session-config'
import { createTurnDetector, type TurnDetector, type TurnEvent } from './turn-detector'

export interface SessionOptions {
  client: SelfClient
  /** Sends one server event (JSON) to the client. */
  send: (event: ServerEvent) => void
  /** `?model=` of the upgrade. */
  queryModel: string | undefined
  /** Largest input audio buffer, in bytes of pcm16 24 kHz. */
  maxBufferBytes: number
  /** Unix seconds when the session ends (`expires_at`). */
  expiresAt: number
}

interface Item {
  id: string
  role: 'system' | 'user' | 'assistant'
  text: string
  /** A committed audio item: its transcript once the stt model answered ('' when it failed). */
  transcript?: Promise<string>
}

export interface RealtimeSession {
  /** Handles one message from the client (text frame). */
  receive(data: string): void
  /** The client is gone or the session ended: aborts every request still open. */
  close(): void
}

export function createRealtimeSession(options: SessionOptions): RealtimeSession {
  const { client } = options
  const abort = new AbortController()
  let config: SessionConfig = newSessionConfig(`sess_${id()}`, options.queryModel, options.expiresAt)
  const buffer = createInputAudioBuffer(options.maxBufferBytes)
  const items: Item[] = []
  let transcribing: Promise<unknown> = Promise.resolve()
  let response: RunningResponse | undefined
  let vad: TurnDetector | undefined
  let vadWork: Promise<void> = Promise.resolve()
  /** Audio heard so far, ms (the VAD's times count from the session's first sample). */
  let heardMs = 0
  /** The user item the speech under way will become (speech_started … committed). */
  let speechItemId: string | undefined

  const send = (event: ServerEvent) => {
    if (!abort.signal.aborted) options.send({ event_id: `event_${id()}`, ...event })
  }
  const sendError = (error: unknown, eventId?: string) => {
    const e =
      error instanceof SvcError || error instanceof SelfCallError
        ? error
        : new SvcError('internal.error', 'internal error')
    send({
      type: 'error',
      error: { type: e.type, code: e.code, message: e.message, param: e.param, event_id: eventId ?? null },
    })
  }
  const lastItemId = () => items.at(-1)?.id ?? null

  function resetVad() {
    vad = config.turnDetection ? createTurnDetector(config.turnDetection, heardMs) : undefined
    speechItemId = undefined
  }

  function commit(pcm: Uint8Array, rate = 24_000, itemId = `item_${id()}`) {
    send({ type: 'input_audio_buffer.committed', previous_item_id: lastItemId(), item_id: itemId })
    send({
      type: 'conversation.item.added',
      previous_item_id: lastItemId(),
      item: userAudioItem(itemId, null),
    })
    const { transcription } = config
    const run = transcribeItem({
      client,
      send,
      itemId,
      pcm,
      rate,
      transcription,
      signal: abort.signal,
      after: transcribing,
    })
    transcribing = run
    items.push({ id: itemId, role: 'user', text: '', transcript: run })
  }

  async function conversation(signal: AbortSignal): Promise<ChatMessage[]> {
    const messages: ChatMessage[] = config.instructions
      ? [{ role: 'system', content: config.instructions }]
      : []
    for (const item of [...items]) {
      const content = item.transcript ? await item.transcript : item.text
      if (signal.aborted) throw new Error('cancelled')
      if (content.trim()) messages.push({ role: item.role, content })
    }
    return messages
  }

  function startResponse(params: Extract<ClientEvent, { type: 'response.create' }>['response'] = {}) {
    if (config.type !== 'realtime') {
      throw new SvcError(
        'request.invalid',
        'a transcription session makes no responses; update the session to type "realtime"',
        { param: 'type' },
      )
    }
    if (response) {
      throw new SvcError(
        'request.invalid',
        `response ${response.id} is still in progress; cancel it first (response.cancel)`,
        { param: 'type' },
      )
    }
    const extra = params.instructions ? [{ role: 'system' as const, content: params.instructions }] : []
    const running = runResponse({
      client,
      send,
      messages: async (signal) => [...(await conversation(signal)), ...extra],
      model: config.model,
      modalities: params.output_modalities ?? config.outputModalities,
      maxOutputTokens: params.max_output_tokens ?? config.maxOutputTokens,
      ttsModel: config.ttsModel,
      voice: config.voice,
      speed: config.speed,
      previousItemId: lastItemId(),
      onItem: ({ id: itemId, text }) => {
        if (params.conversation !== 'none') items.push({ id: itemId, role: 'assistant', text })
      },
    })
    response = running
    void running.done.finally(() => {
      if (response === running) response = undefined
    })
  }

  function onVadEvents(events: TurnEvent[]) {
    for (const event of events) {
      if (event.type === 'speech_started') {
        speechItemId = `item_${id()}`
        send({ type: 'input_audio_buffer.speech_started', audio_start_ms: event.ms, item_id: speechItemId })
        if (response && config.turnDetection?.interruptResponse) response.cancel('turn_detected')
      } else {
        const itemId = speechItemId ?? `item_${id()}`
        speechItemId = undefined
        send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: event.ms, item_id: itemId })
        buffer.clear()
        commit(event.pcm, event.rate, itemId)
        if (config.type === 'realtime' && config.turnDetection?.createResponse && !response) startResponse()
      }
    }
  }

  function handle(event: ClientEvent) {
    switch (event.type) {
      case 'session.update': {
        const before = config.turnDetection
        config = applySessionPatch(config, event.session, options.queryModel)
        if (JSON.stringify(before) !== JSON.stringify(config.turnDetection)) resetVad()
        send({ type: 'session.updated', session: renderSession(config) })
        return
      }
      case 'input_audio_buffer.append': {
        const detector = vad
        // With server VAD a turn commits the detector's segment: audio held outside speech is not kept.
        if (detector && !detector.speaking && buffer.durationMs > 5_000) buffer.clear()
        const pcm = buffer.append(event.audio)
        heardMs += pcm.byteLength / 48
        if (detector) {
          const found = (events: TurnEvent[]) => (detector === vad ? onVadEvents(events) : undefined)
          vadWork = vadWork.then(() => detector.push(pcm).then(found, (error) => sendError(error)))
        }
        return
      }
      case 'input_audio_buffer.commit': {
        if (buffer.durationMs < 100) {
          throw new SvcError(
            'request.invalid',
            `the input audio buffer holds ${Math.round(buffer.durationMs)} ms; a commit needs at least 100 ms of audio`,
            { param: 'input_audio_buffer' },
          )
        }
        commit(buffer.take())
        resetVad()
        return
      }
      case 'input_audio_buffer.clear':
        buffer.clear()
        resetVad()
        send({ type: 'input_audio_buffer.cleared' })
        return
      case 'output_audio_buffer.clear':
        response?.cancel('client_cancelled')
        return
      case 'conversation.item.create':
        addItem(event.item, event.previous_item_id)
        return
      case 'conversation.item.delete': {
        const at = items.findIndex((i) => i.id === event.item_id)
        if (at < 0)
          throw new SvcError('request.invalid', `no item ${event.item_id} in the conversation`, {
            param: 'item_id',
          })
        items.splice(at, 1)
        send({ type: 'conversation.item.deleted', item_id: event.item_id })
        return
      }
      case 'response.create':
        startResponse(event.response)
        return
      case 'response.cancel':
        if (!response || (event.response_id && event.response_id !== response.id)) {
          throw new SvcError('request.invalid', 'no response in progress to cancel', { param: 'response_id' })
        }
        response.cancel('client_cancelled')
        return
    }
  }

  function addItem(item: MessageItem, previous: string | null | undefined) {
    const text = item.content.map((c) => c.text ?? c.transcript ?? '').join('')
    const itemId = item.id ?? `item_${id()}`
    const previousId = previous === undefined ? lastItemId() : previous
    const at = previousId === null ? 0 : items.findIndex((i) => i.id === previousId) + 1
    if (previousId && at === 0)
      throw new SvcError('request.invalid', `no item ${previousId} in the conversation`, {
        param: 'previous_item_id',
      })
    items.splice(at, 0, { id: itemId, role: item.role, text })
    const shown = { ...item, id: itemId, object: 'realtime.item', status: 'completed' }
    send({ type: 'conversation.item.added', previous_item_id: previousId, item: shown })
    send({ type: 'conversation.item.done', previous_item_id: previousId, item: shown })
  }

  send({ type: 'session.created', session: renderSession(config) })
  resetVad()

  return {
    receive(data) {
      const { event, eventId, error } = parseClientEvent(data)
      try {
        if (error) throw error
        handle(event!)
      } catch (e) {
        sendError(e, eventId)
      }
    },
    close() {
      response?.cancel('client_cancelled')
      abort.abort()
    },
  }
}

function id(): string {
  return randomUUID().replaceAll('-', '').slice(0, 20)
}
