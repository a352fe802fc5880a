/**
 * WAV files (RIFF, 16-bit PCM, mono), the one header writer of svc's voice paths: the segments svc
 * hands whisper-server (`encodeWav`), a realtime session's committed audio (`pcm16Wav`), and the head
 * of a streamed `wav` speech answer whose length is not known yet (`wavHeader` without a size).
 */
import { float32ToPcm16 } from './pcm'

const HEADER_BYTES = 44
/** The RIFF and data sizes of a stream whose length is unknown (as OpenAI streams `wav`). */
const UNKNOWN = 0xffffffff

function writeHeader(view: DataView, sampleRate: number, dataBytes: number | undefined): void {
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i))
  }
  ascii(0, 'RIFF')
  view.setUint32(4, dataBytes === undefined ? UNKNOWN : HEADER_BYTES - 8 + dataBytes, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true) // fmt chunk size
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * 2, true) // byte rate
  view.setUint16(32, 2, true) // block align
  view.setUint16(34, 16, true) // bits per sample
  ascii(36, 'data')
  view.setUint32(40, dataBytes ?? UNKNOWN, true)
}

/**
 * The 44-byte header of a 16-bit mono WAV at `sampleRate` Hz holding `dataBytes` of samples; without
 * `dataBytes`, both sizes are 0xFFFFFFFF (players and ffmpeg then read the file to its end).
 */
export function wavHeader(sampleRate: number, dataBytes?: number): Uint8Array<ArrayBuffer> {
  const header = new Uint8Array(HEADER_BYTES)
  writeHeader(new DataView(header.buffer), sampleRate, dataBytes)
  return header
}

/** s16le mono bytes at `sampleRate` Hz as a complete WAV file. */
export function pcm16Wav(pcm: Uint8Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(HEADER_BYTES + pcm.byteLength)
  writeHeader(new DataView(bytes.buffer), sampleRate, pcm.byteLength)
  bytes.set(pcm, HEADER_BYTES)
  return bytes
}

/** `samples` (−1..1, mono) at `sampleRate` Hz as a complete 16-bit PCM WAV file. */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const pcm = float32ToPcm16(samples)
  const bytes = new Uint8Array(HEADER_BYTES + pcm.length * 2)
  const view = new DataView(bytes.buffer)
  writeHeader(view, sampleRate, pcm.length * 2)
  for (let i = 0; i < pcm.length; i++) view.setInt16(HEADER_BYTES + i * 2, pcm[i] as number, true)
  return bytes
}
