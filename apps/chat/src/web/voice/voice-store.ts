import { useEffect, useState } from 'preact/hooks'
import { createStore } from '../store'

/**
 * Where voice mode is: `off`; `connecting` (the microphone and the socket opening); `listening` (your
 * turn: svc's voice detector waits for you to speak and to pause); `thinking` (you paused: svc
 * transcribes and the model answers); `speaking` (the answer plays; speaking over it cuts it short).
 */
export type VoicePhase = 'off' | 'connecting' | 'listening' | 'thinking' | 'speaking'

export interface VoiceState {
  phase: VoicePhase
  /** What svc heard you say this turn (the transcript, as it arrives). */
  heard: string
  /** The answer's words this turn, as they are spoken. */
  answer: string
}

/** Voice mode's own state, apart from the chat store (only the voice components read it). */
export const voice = createStore<VoiceState>({ phase: 'off', heard: '', answer: '' })

/** The selected part of voice mode's state; re-renders on change. */
export function useVoice<T>(select: (s: VoiceState) => T): T {
  const [value, setValue] = useState(() => select(voice.get()))
  useEffect(() => {
    const update = () => setValue(() => select(voice.get()))
    update()
    return voice.subscribe(update)
  }, [])
  return value
}
