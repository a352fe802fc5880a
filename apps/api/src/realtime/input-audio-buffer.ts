/**
 * A session's input audio buffer (`input_audio_buffer.append`): pcm16 mono 24 kHz bytes as the client
 * sent them, bounded by `maxBytes`. Taken whole at a commit (as a WAV for the stt slot).
 */
import { SvcError } from '@svc/core'

/** Bytes per second of `audio/pcm` at 24 kHz, 16 bits, mono. */
export const PCM_BYTES_PER_SECOND = 48_000

export interface InputAudioBuffer {
  /** Appends base64 audio; answers the decoded bytes. Throws 413 `request.too_large` past the limit. */
  append(base64: string): Uint8Array
  /** Everything since the last take/clear, and empties the buffer. */
  take(): Uint8Array
  clear(): void
  /** Audio held, in ms. */
  readonly durationMs: number
}

export function createInputAudioBuffer(maxBytes: number): InputAudioBuffer {
  let chunks: Uint8Array[] = []
  let bytes = 0
  return {
    append(base64) {
      const chunk = Buffer.from(base64, 'base64')
      if (bytes + chunk.byteLength > maxBytes) {
        throw new SvcError(
          'request.too_large',
          `the input audio buffer holds at most ${Math.floor(maxBytes / PCM_BYTES_PER_SECOND)} s of audio (SVC_REALTIME_MAX_BUFFER_SECONDS); commit or clear it`,
          { param: 'audio' },
        )
      }
      chunks.push(chunk)
      bytes += chunk.byteLength
      return chunk
    },
    take() {
      const all = Buffer.concat(chunks, bytes)
      chunks = []
      bytes = 0
      return all.byteLength % 2 ? all.subarray(0, all.byteLength - 1) : all
    },
    clear() {
      chunks = []
      bytes = 0
    },
    get durationMs() {
      return (bytes / PCM_BYTES_PER_SECOND) * 1000
    },
  }
}
