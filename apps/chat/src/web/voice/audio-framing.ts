/**
 * The voice mode's audio as the Realtime API carries it: mono 16-bit little-endian PCM at 24 kHz,
 * base64 in JSON events (`input_audio_buffer.append` {audio}, `response.output_audio.delta` {delta}).
 * The microphone runs at the audio device's rate (44.1 or 48 kHz, usually); it is resampled here.
 */

/** The Realtime API's `audio/pcm` rate, in Hz, both ways. */
export const REALTIME_RATE = 24_000

/**
 * A streaming linear resampler from `fromHz` to `toHz` for mono float samples: chunks of any length
 * in, the resampled chunk out, continuous across chunk boundaries (the position and the last sample
 * carry over), so a stream cut into chunks resamples as it would whole.
 */
export function createResampler(fromHz: number, toHz: number = REALTIME_RATE) {
  const step = fromHz / toHz
  /** Where the next output sample falls, in samples of the next input chunk (−1 ≤ pos: the last sample). */
  let pos = 0
  let last = 0
  return function resample(input: Float32Array): Float32Array {
    if (fromHz === toHz) return input
    const out = new Float32Array(Math.max(0, Math.ceil((input.length - pos) / step) + 1))
    let n = 0
    while (pos < input.length - 1 && n < out.length) {
      const i = Math.floor(pos)
      const frac = pos - i
      const a = i < 0 ? last : input[i]!
      const b = input[i + 1]!
      out[n++] = a + (b - a) * frac
      pos += step
    }
    if (input.length > 0) {
      pos -= input.length
      last = input[input.length - 1]!
    }
    return out.subarray(0, n)
  }
}

/** Float samples (−1..1, clipped) as 16-bit little-endian PCM bytes. */
export function floatToPcm16(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2)
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!))
    view.setInt16(i * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true)
  }
  return bytes
}

/** 16-bit little-endian PCM bytes as float samples (−1..1); a trailing odd byte is ignored. */
export function pcm16ToFloat(bytes: Uint8Array): Float32Array<ArrayBuffer> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = new Float32Array(bytes.byteLength >> 1)
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 0x8000
  return out
}

/** Bytes as base64 (in slices, so a long chunk does not overflow the call stack). */
export function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

/** Base64 as bytes; throws on text that is not base64. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
