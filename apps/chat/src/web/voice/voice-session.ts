import type { Message } from '../../server/store/types'
import { ensureConversation, refreshConversations, reload, undoConversation } from '../actions'
import { ApiError, toApiError } from '../api'
import { showFailure } from '../model-actions'
import { pageText } from '../page-text'
import { store } from '../store'
import { captureMicrophone, type MicCapture } from './mic-capture'
import { createPlayer, type Player } from './player'
import { voice } from './voice-store'

/** The session svc is asked for: a spoken conversation, pcm16 at 24 kHz both ways, svc's voice detector. */
const SESSION_UPDATE = {
  type: 'session.update',
  session: {
    type: 'realtime',
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24_000 },
        turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true },
      },
      output: { format: { type: 'audio/pcm', rate: 24_000 } },
    },
  },
}

interface Session {
  socket: WebSocket
  context: AudioContext
  player: Player
  mic: MicCapture | null
  conversationId: string
  model: string
  /** The conversation was made for this session (removed again when nothing was said). */
  created: boolean
  saved: number
  /** svc heard something (a turn was committed): the chat server saves it even when cut short. */
  spoke: boolean
  /** svc's last `error` event, shown when the session ends because of it. */
  error: { message: string; code: string; status: number } | null
  responding: boolean
  stopped: boolean
  opened: boolean
}

let session: Session | null = null

/** The chat server's voice socket for a conversation, relative to the page (works under `/chat/`). */
export function realtimeUrl(conversationId: string, model: string, page: string = location.href): string {
  const url = new URL(
    `api/realtime?conversation=${encodeURIComponent(conversationId)}&model=${encodeURIComponent(model)}`,
    page,
  )
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.toString()
}

/**
 * Starts voice mode in the open conversation (a new one is made for it when none is open) with the
 * chosen model: the microphone streams to svc through the chat server, the answer plays as it comes,
 * and each spoken turn is saved in the conversation. Call it from a click (the page's audio may start
 * only then). Never throws: what goes wrong ends voice mode and shows above the message box.
 */
export async function startVoice(): Promise<void> {
  if (session) return
  // Made inside the click, before anything is awaited: a browser lets only such a context play.
  const context = new AudioContext()
  voice.set({ phase: 'connecting', heard: '', answer: '' })
  const model = store.get().model
  store.set({ notice: null })
  let made: Awaited<ReturnType<typeof ensureConversation>>
  try {
    made = await ensureConversation()
  } catch (error) {
    void context.close()
    voice.set({ phase: 'off' })
    showFailure(error, model)
    return
  }
  const socket = new WebSocket(realtimeUrl(made.conversation.id, model))
  const s: Session = {
    socket,
    context,
    player: createPlayer(context, () => {
      if (session === s && !s.responding) voice.set({ phase: 'listening' })
    }),
    mic: null,
    conversationId: made.conversation.id,
    model,
    created: made.created,
    saved: 0,
    spoke: false,
    error: null,
    responding: false,
    stopped: false,
    opened: false,
  }
  session = s
  socket.onopen = async () => {
    s.opened = true
    socket.send(JSON.stringify(SESSION_UPDATE))
    try {
      s.mic = await captureMicrophone(context, (audio) => {
        if (socket.readyState === WebSocket.OPEN) {
          socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio }))
        }
      })
      if (s.stopped) s.mic.stop()
      else voice.set({ phase: 'listening' })
    } catch (error) {
      s.error = {
        message: `The microphone is not available: ${(error as Error).message}`,
        code: 'microphone',
        status: 0,
      }
      socket.close(1000, 'no microphone')
    }
  }
  socket.onmessage = (event) => {
    if (typeof event.data !== 'string') return
    try {
      handle(s, JSON.parse(event.data) as Record<string, unknown>)
    } catch (error) {
      console.error('voice mode: a bad event', error)
    }
  }
  socket.onclose = (event) => void ended(s, event.code)
}

/** Stop: silence at once, the microphone off, the session closed (svc stops what it was doing). */
export function stopVoice(): void {
  const s = session
  if (!s) return
  s.stopped = true
  s.mic?.stop()
  s.player.clear()
  if (s.socket.readyState === WebSocket.CONNECTING || s.socket.readyState === WebSocket.OPEN) {
    s.socket.close(1000, 'stopped')
  }
}

function handle(s: Session, event: Record<string, unknown>): void {
  const text = (key: string) => (typeof event[key] === 'string' ? (event[key] as string) : '')
  switch (event.type) {
    case 'input_audio_buffer.speech_started':
      // Barge-in: svc cancels its answer; what was scheduled of it stops here.
      s.player.clear()
      voice.set({ phase: 'listening', heard: '', answer: '' })
      break
    case 'input_audio_buffer.committed':
      s.spoke = true
      voice.set({ phase: 'thinking' })
      break
    case 'input_audio_buffer.speech_stopped':
      voice.set({ phase: 'thinking' })
      break
    case 'conversation.item.input_audio_transcription.delta':
      voice.set((v) => ({ heard: v.heard + text('delta') }))
      break
    case 'conversation.item.input_audio_transcription.completed':
      voice.set({ heard: text('transcript').trim() })
      break
    case 'response.created':
      s.responding = true
      voice.set({ answer: '' })
      break
    case 'response.output_audio.delta':
      s.player.enqueue(text('delta'))
      voice.set({ phase: 'speaking' })
      break
    case 'response.output_audio_transcript.delta':
    case 'response.output_text.delta':
      voice.set((v) => ({ answer: v.answer + text('delta') }))
      break
    case 'response.done':
      s.responding = false
      if (!s.player.playing) voice.set({ phase: 'listening' })
      break
    case 'error': {
      const error = (event.error ?? {}) as { message?: unknown; code?: unknown }
      s.error = {
        message: String(error.message ?? 'svc reported an error'),
        code: String(error.code ?? ''),
        status: 0,
      }
      break
    }
    case 'chat.turn.saved': {
      // The turn as saved {user, assistant}: shown at once, then read back (the title the first
      // turn gave the conversation comes with it).
      s.saved++
      const { user, assistant } = event as unknown as { user: Message; assistant: Message }
      store.set((state) =>
        state.current?.id === s.conversationId
          ? { current: { ...state.current, messages: [...state.current.messages, user, assistant] } }
          : {},
      )
      void reload(s.conversationId)
      void refreshConversations()
      break
    }
  }
}

/**
 * Why the chat server refused the socket (a browser is told nothing): the same URL asked plainly
 * answers the same refusal (signed out, busy, gone). Null when it would have been accepted.
 */
async function whyRefused(s: Session): Promise<Session['error']> {
  try {
    const url = realtimeUrl(s.conversationId, s.model).replace(/^ws/, 'http')
    const res = await fetch(url)
    if (res.ok || res.status === 400) return null
    const error = await toApiError(res)
    return { message: error.message, code: error.code, status: res.status }
  } catch {
    return null
  }
}

/** The socket closed: everything stops; an error svc named (or a failed connection) shows above the message box. */
async function ended(s: Session, code: number): Promise<void> {
  s.mic?.stop()
  s.player.clear()
  void s.context.close()
  if (session === s) session = null
  voice.set({ phase: 'off' })
  if (!s.opened && !s.stopped && !s.error) s.error = await whyRefused(s)
  if (s.error) {
    const status = s.error.status || (code >= 4000 ? code - 4000 : 0)
    showFailure(new ApiError(s.error.message, status, s.error.code), s.model)
  } else if (!s.stopped && code !== 1000) {
    store.set({
      notice: {
        kind: 'error',
        text: pageText(
          code === 1006
            ? 'Voice mode could not connect. Reload the page and try again.'
            : code === 1001
              ? 'Voice mode ended: the chat server is restarting. Try again in a moment.'
              : 'Voice mode ended: svc closed the conversation.',
        ),
      },
    })
  }
  if (s.created && s.saved === 0 && !s.spoke) await undoConversation(s.conversationId)
  else {
    // The chat server saves a turn cut short when it sees the socket close: read it back after that.
    await new Promise((resolve) => setTimeout(resolve, 500))
    await reload(s.conversationId)
  }
}
