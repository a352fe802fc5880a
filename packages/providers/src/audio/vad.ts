/**
 * The voice-activity detector: Silero VAD (silero-model.ts) deciding per 32 ms frame, the segmenter
 * (vad-segmenter.ts) turning its decisions into speech segments. Used by streaming transcription
 * (`splitAtPauses`) and the Realtime API's server VAD (`createVad`, pushed as audio arrives).
 */
import { createSileroModel, SILERO_FRAME_SAMPLES, type SpeechModel, warmSileroModel } from './silero-model'
import { createSegmenter, type VadEvent, type VadOptions } from './vad-segmenter'

export { VAD_DEFAULTS, type VadEvent, type VadOptions } from './vad-segmenter'

/**
 * Loads the detector's model now (onnxruntime-web and Silero, 1–9 s the first time in a process)
 * instead of on the first push; idempotent once it succeeded. Rejects with the load's failure (a later
 * call, or the first push, tries again). A process that never calls this nor pushes loads nothing.
 */
export function warmVad(): Promise<void> {
  return warmSileroModel()
}

/** A streaming detector over one audio stream. */
export interface Vad {
  /**
   * Feeds 16 kHz mono float32 samples (−1..1), any length; resolves with the events the complete
   * 32 ms frames among them produced (a partial frame waits for the next push). Calls are processed
   * in order even when not awaited.
   */
  push(samples: Float32Array): Promise<VadEvent[]>
  /** The end of the stream: the last partial frame is decided, an open segment is closed. */
  flush(): Promise<VadEvent[]>
}

/**
 * A detector (`createVad({ minSilenceMs: 700 })`). The model is loaded on the first push (about a
 * second for the first detector in a process; later ones share it), so a failure to load it rejects
 * that push. Throws `RangeError` at once for options out of range. `model` is for tests.
 */
export function createVad(options: VadOptions = {}, model?: SpeechModel): Vad {
  const segmenter = createSegmenter(SILERO_FRAME_SAMPLES, options)
  let loaded: Promise<SpeechModel> | undefined
  let pending = new Float32Array(0)
  let chain: Promise<unknown> = Promise.resolve()

  const frames = async (samples: Float32Array, final: boolean): Promise<VadEvent[]> => {
    loaded ??= model ? Promise.resolve(model) : createSileroModel()
    const speech = await loaded
    const all = new Float32Array(pending.length + samples.length)
    all.set(pending)
    all.set(samples, pending.length)
    const events: VadEvent[] = []
    let at = 0
    for (; at + SILERO_FRAME_SAMPLES <= all.length; at += SILERO_FRAME_SAMPLES) {
      const frame = all.slice(at, at + SILERO_FRAME_SAMPLES)
      events.push(...segmenter.frame(frame, await speech.probability(frame)))
    }
    pending = all.slice(at)
    if (final) {
      if (pending.length > 0) {
        const frame = new Float32Array(SILERO_FRAME_SAMPLES)
        frame.set(pending)
        events.push(...segmenter.frame(frame, await speech.probability(frame)))
        pending = new Float32Array(0)
      }
      events.push(...segmenter.end())
    }
    return events
  }
  const inOrder = (samples: Float32Array, final: boolean) => {
    const run = chain.then(() => frames(samples, final))
    chain = run.catch(() => {})
    return run
  }
  return {
    push: (samples) => inOrder(samples, false),
    flush: () => inOrder(new Float32Array(0), true),
  }
}
