import { describe, expect, it } from 'vitest'
import {
  createResampler,
  floatToPcm16,
  fromBase64,
  pcm16ToFloat,
  REALTIME_RATE,
  toBase64,
} from './audio-framing'

/** A sine of `hz` at `rate`, `seconds` long. */
function sine(hz: number, rate: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds))
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / rate)
  return out
}

/** The largest difference between two signals over the shorter one's length. */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let max = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) max = Math.max(max, Math.abs(a[i]! - b[i]!))
  return max
}

describe('the voice mode audio framing', () => {
  it('resamples 48 kHz to 24 kHz in chunks as it would whole, keeping the waveform', () => {
    const input = sine(440, 48_000, 0.5)
    const whole = createResampler(48_000)(input)
    const chunked = createResampler(48_000)
    const parts: number[] = []
    // Chunks of the worklet's odd sizes: the position carries over between them.
    for (let i = 0; i < input.length; i += 1000) parts.push(...chunked(input.subarray(i, i + 1000)))
    expect(whole.length).toBeGreaterThan(REALTIME_RATE * 0.5 - 2)
    expect(whole.length).toBeLessThanOrEqual(REALTIME_RATE * 0.5)
    expect(parts.length).toBe(whole.length)
    expect(maxDiff(parts, whole)).toBeLessThan(1e-6)
    expect(maxDiff(whole, sine(440, REALTIME_RATE, 0.5))).toBeLessThan(0.01)
  })

  it('resamples 44.1 kHz (a ratio that is no whole number) to the right length and waveform', () => {
    const input = sine(300, 44_100, 1)
    const resample = createResampler(44_100)
    const out: number[] = []
    for (let i = 0; i < input.length; i += 128) out.push(...resample(input.subarray(i, i + 128)))
    expect(Math.abs(out.length - REALTIME_RATE)).toBeLessThanOrEqual(2)
    expect(maxDiff(out, sine(300, REALTIME_RATE, 1))).toBeLessThan(0.01)
  })

  it('writes pcm16 little-endian, clipped, and reads it back through base64', () => {
    const bytes = floatToPcm16(Float32Array.from([0, 1, -1, 2, -2, 0.5]))
    expect([...bytes.subarray(0, 6)]).toEqual([0x00, 0x00, 0xff, 0x7f, 0x00, 0x80])
    const back = pcm16ToFloat(fromBase64(toBase64(bytes)))
    expect([...back].map((x) => Math.round(x * 1000) / 1000)).toEqual([0, 1, -1, 1, -1, 0.5])
  })

  it('encodes a chunk longer than one slice as the same base64 as Node does', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) & 0xff)
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'))
  })
})
