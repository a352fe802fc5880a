/**
 * Plain PCM conversions for the voice paths (streaming transcription, the Realtime API): 16-bit
 * little-endian integer samples ↔ float32 samples in −1..1, and a sample-rate change. All mono.
 */

/**
 * s16le samples as float32 in −1..1. Takes an `Int16Array` or the raw bytes (`Uint8Array`, little
 * endian, as OpenAI's `pcm16` and `audio/pcm` carry them); an odd trailing byte is ignored.
 */
export function pcm16ToFloat32(pcm: Int16Array | Uint8Array): Float32Array {
  if (pcm instanceof Int16Array) {
    const out = new Float32Array(pcm.length)
    for (let i = 0; i < pcm.length; i++) out[i] = (pcm[i] as number) / 32768
    return out
  }
  const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength)
  const out = new Float32Array(pcm.byteLength >> 1)
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768
  return out
}

/** float32 samples (clipped to −1..1) as s16le integers, rounded to the nearest step. */
export function float32ToPcm16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length)
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] as number))
    out[i] = Math.round(s < 0 ? s * 32768 : s * 32767)
  }
  return out
}

/**
 * `samples` at `fromHz` resampled to `toHz` (linear interpolation; when going down, each output
 * sample first averages the input samples it covers, a box filter that keeps the worst aliasing out).
 * Good enough for speech into a recogniser or a VAD, not for music. Returns the input itself when
 * the rates match. Throws `RangeError` for a rate that is not a positive finite number.
 */
export function resamplePcm(samples: Float32Array, fromHz: number, toHz: number): Float32Array {
  if (!(fromHz > 0 && toHz > 0 && Number.isFinite(fromHz) && Number.isFinite(toHz))) {
    throw new RangeError(`sample rates must be positive numbers (got ${fromHz} → ${toHz})`)
  }
  if (fromHz === toHz || samples.length === 0) return samples
  const ratio = fromHz / toHz
  const length = Math.max(1, Math.round(samples.length / ratio))
  const out = new Float32Array(length)
  const last = samples.length - 1
  if (ratio <= 1) {
    for (let i = 0; i < length; i++) {
      const at = i * ratio
      const left = Math.min(Math.floor(at), last)
      const right = Math.min(left + 1, last)
      const frac = at - left
      out[i] = (samples[left] as number) * (1 - frac) + (samples[right] as number) * frac
    }
    return out
  }
  for (let i = 0; i < length; i++) {
    const from = Math.floor(i * ratio)
    const to = Math.min(Math.max(from + 1, Math.floor((i + 1) * ratio)), samples.length)
    let sum = 0
    for (let j = from; j < to; j++) sum += samples[j] as number
    out[i] = to > from ? sum / (to - from) : 0
  }
  return out
}
