/**
 * whisper-server's error replies svc answers in its own words (`Provider.normaliseError`). An upload
 * that is not audio fails in whisper-server's conversion (`--convert`: HTTP 500
 * `{"error":"FFmpeg conversion failed."}`) or in its decoder without `--convert` (`failed to read
 * audio data`, `failed to read WAV file`): the caller's mistake, answered 400 `audio.unreadable`
 * instead of 502 `upstream.error`.
 */
import { SvcError } from '@svc/core'

const UNREADABLE = /FFmpeg conversion failed|failed to read (audio|WAV)/i

/** What people read: the formats the stt slot takes (ffmpeg converts them). */
export const AUDIO_UNREADABLE_MESSAGE = 'the file is not audio svc can read (wav, mp3, ogg, flac, m4a, webm…)'

/** The `audio.unreadable` error for whisper-server's failed conversion; undefined for anything else. */
export function normaliseWhisperError(status: number, body: unknown): SvcError | undefined {
  if (status < 400) return undefined
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : body
  const text = typeof error === 'string' ? error : ''
  if (!UNREADABLE.test(text)) return undefined
  return new SvcError('audio.unreadable', AUDIO_UNREADABLE_MESSAGE, { param: 'file' })
}
