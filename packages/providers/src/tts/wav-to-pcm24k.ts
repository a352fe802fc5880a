/**
 * A speech engine's WAV answer as OpenAI's `pcm`: raw s16le, mono, 24 kHz, the one form svc joins
 * sentences in when it streams speech (speech-stream.ts). Engines answer WAV in their own rates:
 * espeak-ng 22.05 kHz (written as it is synthesised, so the header's sizes are placeholders),
 * Kokoro and Chatterbox 24 kHz.
 */
import { SvcError } from '@svc/core'
import { float32ToPcm16, pcm16ToFloat32, resamplePcm } from '../audio/pcm'

/** OpenAI's `pcm`: 24 kHz, 16-bit, mono. */
export const PCM_RATE = 24_000

interface WavFormat {
  /** 1 = integer PCM, 3 = IEEE float. */
  encoding: number
  channels: number
  sampleRate: number
  bitsPerSample: number
}

const ascii = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length))

/**
 * The format and sample bytes of a WAV file. A `data` size past the end of the file (a header
 * written before the length was known: 0, 0xFFFFFFFF or espeak-ng's 0x7FFFF000) means "to the end".
 * Throws 502 `upstream.error` for what is not a WAV svc can read (16-bit or 32-bit float PCM).
 */
export function readWav(bytes: Uint8Array): { format: WavFormat; data: Uint8Array } {
  const bad = (why: string) =>
    new SvcError('upstream.error', `the speech engine's audio is not a WAV svc can read: ${why}`, {
      status: 502,
    })
  if (bytes.length < 12 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE')
    throw bad('no RIFF/WAVE header')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let format: WavFormat | undefined
  let at = 12
  while (at + 8 <= bytes.length) {
    const id = ascii(bytes, at, 4)
    const size = view.getUint32(at + 4, true)
    const body = at + 8
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw bad('a short fmt chunk')
      const tag = view.getUint16(body, true)
      format = {
        // WAVE_FORMAT_EXTENSIBLE names the encoding in its sub-format GUID's first two bytes.
        encoding: tag === 0xfffe && size >= 26 ? view.getUint16(body + 24, true) : tag,
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      }
    } else if (id === 'data') {
      if (!format) throw bad('data before fmt')
      const end = size === 0 || body + size > bytes.length ? bytes.length : body + size
      const usable =
        (format.encoding === 1 && format.bitsPerSample === 16) ||
        (format.encoding === 3 && format.bitsPerSample === 32)
      if (!usable || format.channels < 1 || format.sampleRate < 1)
        throw bad(`encoding ${format.encoding}, ${format.bitsPerSample} bits, ${format.channels} channels`)
      return { format, data: bytes.subarray(body, end) }
    }
    at = body + size + (size % 2)
  }
  throw bad('no data chunk')
}

/** A WAV file's audio as s16le mono 24 kHz bytes (the data itself when it is that already). */
export function wavToPcm24k(bytes: Uint8Array): Uint8Array {
  const { format, data } = readWav(bytes)
  const { channels, sampleRate } = format
  const frameBytes = (format.bitsPerSample / 8) * channels
  const frames = Math.floor(data.length / frameBytes)
  if (format.encoding === 1 && channels === 1 && sampleRate === PCM_RATE) return data.subarray(0, frames * 2)
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  let mono: Float32Array
  if (format.encoding === 1 && channels === 1) mono = pcm16ToFloat32(data.subarray(0, frames * 2))
  else {
    mono = new Float32Array(frames)
    const step = format.bitsPerSample / 8
    for (let i = 0; i < frames; i++) {
      let sum = 0
      for (let c = 0; c < channels; c++) {
        const offset = i * frameBytes + c * step
        sum += format.encoding === 3 ? view.getFloat32(offset, true) : view.getInt16(offset, true) / 32768
      }
      mono[i] = sum / channels
    }
  }
  const pcm = float32ToPcm16(resamplePcm(mono, sampleRate, PCM_RATE))
  return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)
}
