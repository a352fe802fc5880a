/** A whole recording cut at its pauses: what streaming transcription sends to whisper one by one. */
import { createVad, type VadOptions } from './vad'

/** One stretch of speech; times in ms from the start of the recording. */
export interface SpeechSegment {
  startMs: number
  endMs: number
  /** 16 kHz mono float32, with the detector's padding around the speech. */
  audio: Float32Array
}

/**
 * The speech segments of `samples` (16 kHz mono float32), in order; empty for a recording with no
 * speech. Pass `onSegment` to get each segment as soon as its closing pause is found (the promise
 * still resolves with all of them). Rejects with `signal`'s reason once it aborts.
 */
export async function splitAtPauses(
  samples: Float32Array,
  options: VadOptions & { signal?: AbortSignal; onSegment?: (segment: SpeechSegment) => void } = {},
): Promise<SpeechSegment[]> {
  const vad = createVad(options)
  const segments: SpeechSegment[] = []
  // Fed a second at a time so that `onSegment` fires early and an abort is seen between chunks.
  const chunk = 16000
  for (let at = 0; at <= samples.length; at += chunk) {
    options.signal?.throwIfAborted()
    const last = at + chunk >= samples.length
    const part = samples.subarray(at, Math.min(at + chunk, samples.length))
    const events = [...(await vad.push(part)), ...(last ? await vad.flush() : [])]
    for (const event of events) {
      if (event.type !== 'speech_stopped') continue
      const segment = { startMs: event.startMs, endMs: event.endMs, audio: event.audio }
      segments.push(segment)
      options.onSegment?.(segment)
    }
    if (last) break
  }
  return segments
}
