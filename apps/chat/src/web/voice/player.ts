import { fromBase64, pcm16ToFloat, REALTIME_RATE } from './audio-framing'

/** A little lead, so the first chunk of an answer is not scheduled in the past. */
const LEAD_S = 0.05

export interface Player {
  /** Schedules one chunk of base64 pcm16 at 24 kHz right after the last one (back to back, no gaps). */
  enqueue(base64Pcm16: string): void
  /** Stops what plays and drops what is scheduled (barge-in, Stop). */
  clear(): void
  /** Whether anything is playing or scheduled. */
  readonly playing: boolean
}

/**
 * Plays an answer as it arrives: each chunk becomes an AudioBuffer at 24 kHz (the context resamples
 * it to the device) started exactly when the previous one ends. `onIdle` is called when the last
 * scheduled chunk has finished (not after `clear`).
 */
export function createPlayer(context: AudioContext, onIdle: () => void): Player {
  const sources = new Set<AudioBufferSourceNode>()
  let next = 0
  return {
    enqueue(base64Pcm16) {
      const samples = pcm16ToFloat(fromBase64(base64Pcm16))
      if (samples.length === 0) return
      const buffer = context.createBuffer(1, samples.length, REALTIME_RATE)
      buffer.copyToChannel(samples, 0)
      const source = context.createBufferSource()
      source.buffer = buffer
      source.connect(context.destination)
      next = Math.max(next, context.currentTime + LEAD_S)
      source.start(next)
      next += buffer.duration
      sources.add(source)
      source.onended = () => {
        if (!sources.delete(source)) return
        if (sources.size === 0) onIdle()
      }
    },
    clear() {
      const playing = [...sources]
      sources.clear()
      for (const source of playing) {
        source.onended = null
        source.stop()
        source.disconnect()
      }
      next = 0
    },
    get playing() {
      return sources.size > 0
    },
  }
}
