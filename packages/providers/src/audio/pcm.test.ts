import { describe, expect, it } from 'vitest'
import { float32ToPcm16, pcm16ToFloat32, resamplePcm } from './pcm'
import { encodeWav } from './wav'

/** Zero crossings per second of `samples` at `hz`: twice the frequency of a pure tone. */
function crossingsPerSecond(samples: Float32Array, hz: number): number {
  let n = 0
  for (let i = 1; i < samples.length; i++)
    if ((samples[i - 1] as number) < 0 !== (samples[i] as number) < 0) n++
  return n / (samples.length / hz)
}

const tone = (hz: number, rate: number, seconds: number) =>
  Float32Array.from({ length: rate * seconds }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate + 0.1))

describe('PCM helpers', () => {
  it('reads s16le bytes and Int16Array alike', () => {
    const ints = new Int16Array([0, 16384, -32768, 32767])
    const bytes = new Uint8Array(ints.buffer)
    expect(Array.from(pcm16ToFloat32(ints))).toEqual([0, 0.5, -1, 32767 / 32768])
    expect(Array.from(pcm16ToFloat32(bytes))).toEqual(Array.from(pcm16ToFloat32(ints)))
    // An odd trailing byte is not a sample.
    expect(pcm16ToFloat32(new Uint8Array([0, 64, 7]))).toEqual(new Float32Array([0.5]))
  })

  it('writes float32 as s16 and clips what is out of range', () => {
    expect(Array.from(float32ToPcm16(new Float32Array([0, 0.5, -1, 1, 2, -3])))).toEqual([
      0, 16384, -32768, 32767, 32767, -32768,
    ])
    const back = pcm16ToFloat32(float32ToPcm16(tone(440, 16000, 0.1)))
    expect(Math.max(...back.map((v, i) => Math.abs(v - (tone(440, 16000, 0.1)[i] as number))))).toBeLessThan(
      1e-4,
    )
  })

  it('resamples 24 kHz to 16 kHz and back, keeping the length and the pitch', () => {
    const at24 = tone(440, 24000, 1)
    const at16 = resamplePcm(at24, 24000, 16000)
    expect(at16.length).toBe(16000)
    expect(crossingsPerSecond(at16, 16000)).toBeCloseTo(880, -1)
    const again = resamplePcm(at16, 16000, 24000)
    expect(again.length).toBe(24000)
    expect(crossingsPerSecond(again, 24000)).toBeCloseTo(880, -1)
    expect(resamplePcm(at24, 24000, 24000)).toBe(at24)
    expect(() => resamplePcm(at24, 0, 16000)).toThrow(RangeError)
  })

  it('encodes a 16-bit mono WAV with a correct header', () => {
    const wav = encodeWav(new Float32Array([0, 0.5, -0.5]), 16000)
    const view = new DataView(wav.buffer)
    const text = (at: number) => String.fromCharCode(...wav.subarray(at, at + 4))
    expect([text(0), text(8), text(12), text(36)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data'])
    expect(view.getUint32(4, true)).toBe(wav.length - 8)
    expect(view.getUint32(24, true)).toBe(16000)
    expect(view.getUint32(40, true)).toBe(6)
    expect(view.getInt16(46, true)).toBe(16384)
  })
})
