import { describe, expect, it } from 'vitest'
import { encodeWav, wavHeader } from '../audio/wav'
import { PCM_RATE, readWav, wavToPcm24k } from './wav-to-pcm24k'

/** A sine at `hz` for `seconds` at `rate`. */
const tone = (rate: number, seconds: number, hz = 440) =>
  Float32Array.from(
    { length: Math.round(rate * seconds) },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate),
  )

describe('an engine’s WAV as OpenAI’s pcm', () => {
  it('passes 24 kHz 16-bit mono through as it is', () => {
    const wav = encodeWav(tone(PCM_RATE, 0.5), PCM_RATE)
    const pcm = wavToPcm24k(wav)
    expect(pcm.length).toBe(PCM_RATE) // 0.5 s × 2 bytes
    expect(Buffer.from(pcm).equals(Buffer.from(wav.subarray(44)))).toBe(true)
  })

  it('resamples espeak-ng’s 22.05 kHz to 24 kHz, keeping the duration and the pitch', () => {
    const wav = encodeWav(tone(22_050, 1), 22_050)
    const pcm = wavToPcm24k(wav)
    expect(pcm.length / 2).toBeCloseTo(PCM_RATE, -1)
    // 440 Hz: 880 zero crossings a second, as many after the change of rate.
    const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength)
    let crossings = 0
    for (let i = 1; i < pcm.length / 2; i++)
      if (view.getInt16(i * 2, true) < 0 !== view.getInt16((i - 1) * 2, true) < 0) crossings++
    expect(Math.abs(crossings - 880)).toBeLessThan(10)
  })

  it('reads a header written before the length was known (espeak-ng’s placeholder sizes)', () => {
    const wav = encodeWav(tone(22_050, 0.2), 22_050)
    new DataView(wav.buffer).setUint32(40, 0x7ffff000, true)
    const { format, data } = readWav(wav)
    expect(format).toMatchObject({ sampleRate: 22_050, channels: 1, bitsPerSample: 16 })
    expect(data.length).toBe(wav.length - 44)
  })

  it('refuses what is not a WAV it can read with a 502 that says so', () => {
    expect(() => wavToPcm24k(new TextEncoder().encode('{"error":"no"}'))).toThrow(
      expect.objectContaining({ status: 502, message: expect.stringContaining('not a WAV') }),
    )
    const eightBit = encodeWav(tone(8000, 0.1), 8000)
    new DataView(eightBit.buffer).setUint16(34, 8, true)
    expect(() => wavToPcm24k(eightBit)).toThrow(/8 bits/)
  })

  it('starts a stream with a 24 kHz mono header of unknown length', () => {
    const header = wavHeader(PCM_RATE)
    const { format, data } = readWav(new Uint8Array([...header, ...new Uint8Array(PCM_RATE * 2)]))
    expect(format).toEqual({ encoding: 1, channels: 1, sampleRate: PCM_RATE, bitsPerSample: 16 })
    expect(data.length).toBe(PCM_RATE * 2)
    expect(new DataView(header.buffer).getUint32(40, true)).toBe(0xffffffff)
  })
})
