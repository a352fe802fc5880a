/**
 * The decision part of the voice-activity detector, pure: frames with their speech probability in,
 * `speech_started` / `speech_stopped` events out. It follows Silero's own streaming rule
 * (`VADIterator`: speech from the first frame at or over `threshold`, over once the probability has
 * stayed under `threshold − 0.15` for `minSilenceMs`), and reports where speech really ended rather
 * than where the silence was confirmed. (vad-web's `FrameProcessor` was not enough for this: its
 * segments end with the whole confirming silence and it reports no times.)
 */

/** What the detector reports; times in ms from the first sample pushed. */
export type VadEvent =
  | { type: 'speech_started'; ms: number }
  | {
      type: 'speech_stopped'
      /** When the pause was confirmed (`endMs + minSilenceMs`, or the end of the audio). */
      ms: number
      /** Where speech began and ended (unpadded). */
      startMs: number
      endMs: number
      /** The segment's samples from `startMs − speechPadMs` to `endMs + speechPadMs` (clipped to the audio). */
      audio: Float32Array
    }

export interface VadOptions {
  /** Only 16 kHz mono float32 is taken. */
  sampleRate?: 16000
  /** A pause at least this long ends a segment (default 500, OpenAI's `silence_duration_ms`). */
  minSilenceMs?: number
  /** Audio kept before and after each segment (default 300, OpenAI's `prefix_padding_ms`). */
  speechPadMs?: number
  /** Speech probability (0..1) that starts speech (default 0.5, OpenAI's server VAD `threshold`). */
  threshold?: number
  /** Speech shorter than this is a misfire: no events at all (default 96). */
  minSpeechMs?: number
}

export const VAD_DEFAULTS = { minSilenceMs: 500, speechPadMs: 300, threshold: 0.5, minSpeechMs: 96 } as const

export interface Segmenter {
  /** One frame of `frameMs` and its speech probability. */
  frame(samples: Float32Array, probability: number): VadEvent[]
  /** The end of the audio: a segment still open ends where speech was last heard. */
  end(): VadEvent[]
}

/** A segmenter over frames of `frameSamples` samples at 16 kHz. Throws `RangeError` on bad options. */
export function createSegmenter(frameSamples: number, options: VadOptions = {}): Segmenter {
  const minSilenceMs = options.minSilenceMs ?? VAD_DEFAULTS.minSilenceMs
  const padMs = options.speechPadMs ?? VAD_DEFAULTS.speechPadMs
  const threshold = options.threshold ?? VAD_DEFAULTS.threshold
  const minSpeechMs = options.minSpeechMs ?? VAD_DEFAULTS.minSpeechMs
  if (options.sampleRate !== undefined && options.sampleRate !== 16000) {
    throw new RangeError('the VAD takes 16 kHz audio only')
  }
  for (const [name, value] of Object.entries({ minSilenceMs, speechPadMs: padMs, minSpeechMs })) {
    if (!(value >= 0 && Number.isFinite(value))) throw new RangeError(`${name} must be a number ≥ 0`)
  }
  if (!(threshold > 0 && threshold < 1)) throw new RangeError('threshold must be between 0 and 1')
  const negative = Math.max(threshold - 0.15, 0.01)
  const frameMs = (frameSamples / 16000) * 1000
  const padFrames = Math.ceil(padMs / frameMs)

  /** Frames kept: the open segment and its padding, or just the last `padFrames` between segments. */
  let kept: Float32Array[] = []
  let keptFirst = 0 // index of kept[0]
  let index = 0 // index of the next frame
  let speaking = false
  let started = false // speech_started sent (the segment passed minSpeechMs)
  let startFrame = 0
  let speechFrames = 0
  let lastSpeech = 0 // index of the last frame at or over `negative`, while speaking
  let silentSince: number | undefined // first frame of the current run under `negative`

  const ms = (frame: number) => Math.round(frame * frameMs)
  const close = (endFrame: number, atMs: number): VadEvent[] => {
    const events: VadEvent[] = []
    if (started) {
      const from = Math.max(startFrame - padFrames, keptFirst)
      const to = Math.min(endFrame + padFrames, keptFirst + kept.length)
      const audio = concat(kept.slice(from - keptFirst, to - keptFirst))
      events.push({ type: 'speech_stopped', ms: atMs, startMs: ms(startFrame), endMs: ms(endFrame), audio })
    }
    speaking = false
    started = false
    silentSince = undefined
    speechFrames = 0
    return events
  }

  return {
    frame(samples, probability) {
      const events: VadEvent[] = []
      const at = index++
      kept.push(samples)
      if (!speaking && probability >= threshold) {
        speaking = true
        startFrame = at
        speechFrames = 0
        silentSince = undefined
      }
      if (speaking) {
        if (probability >= threshold) speechFrames++
        if (probability >= negative) {
          silentSince = undefined
          lastSpeech = at
        } else silentSince ??= at
        if (!started && speechFrames * frameMs >= minSpeechMs) {
          started = true
          events.push({ type: 'speech_started', ms: ms(startFrame) })
        }
        if (silentSince !== undefined && (at + 1 - silentSince) * frameMs >= minSilenceMs) {
          events.push(...close(lastSpeech + 1, ms(at + 1)))
        }
      }
      if (!speaking && kept.length > padFrames) {
        // Between segments only the padding before the next one is worth keeping.
        const drop = kept.length - padFrames
        kept = kept.slice(drop)
        keptFirst += drop
      }
      return events
    },
    end() {
      const events = speaking ? close(silentSince ?? index, ms(index)) : []
      kept = []
      keptFirst = index
      return events
    },
  }
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
