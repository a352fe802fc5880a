/**
 * Server VAD for a realtime session (`turn_detection: server_vad`): the client's pcm16 24 kHz audio,
 * resampled to 16 kHz for @svc/providers' Silero detector (`createVad`), gives the turn's
 * `speech_started` / `speech_stopped`, the latter with the spoken segment (padded by
 * `prefix_padding_ms`) to commit. Times in ms of audio since `offsetMs` (the audio the session heard
 * before this detector).
 */
import { createVad, float32ToPcm16, pcm16ToFloat32, resamplePcm } from '@svc/providers'
import type { TurnDetection } from './session-config'

const VAD_RATE = 16_000

export type TurnEvent =
  | { type: 'speech_started'; ms: number }
  | { type: 'speech_stopped'; ms: number; pcm: Uint8Array; rate: number }

export interface TurnDetector {
  /** Feeds client audio (pcm16 mono 24 kHz bytes); answers what it found in it, in order. */
  push(pcm: Uint8Array): Promise<TurnEvent[]>
  /** Whether speech has started and not yet stopped. */
  readonly speaking: boolean
}

export function createTurnDetector(settings: TurnDetection, offsetMs = 0): TurnDetector {
  const vad = createVad({
    sampleRate: VAD_RATE,
    threshold: settings.threshold,
    minSilenceMs: settings.silenceDurationMs,
    speechPadMs: settings.prefixPaddingMs,
  })
  let speaking = false
  return {
    async push(pcm) {
      const events = await vad.push(resamplePcm(pcm16ToFloat32(pcm), 24_000, VAD_RATE))
      return events.map((event): TurnEvent => {
        speaking = event.type === 'speech_started'
        if (event.type === 'speech_started') return { type: 'speech_started', ms: offsetMs + event.ms }
        const samples = float32ToPcm16(event.audio)
        const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)
        return { type: 'speech_stopped', ms: offsetMs + event.endMs, pcm: bytes, rate: VAD_RATE }
      })
    },
    get speaking() {
      return speaking
    },
  }
}
