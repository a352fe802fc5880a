import { describe, expect, it } from 'vitest'
import { normaliseWhisperError } from './whisper-errors'

describe('whisper-server errors in svc’s words', () => {
  it('answers an upload that is not audio as 400 audio.unreadable', () => {
    for (const body of [
      { error: 'FFmpeg conversion failed.' },
      { error: 'failed to read audio data' },
      'failed to read WAV file',
    ]) {
      const error = normaliseWhisperError(500, body)
      expect(error?.code, JSON.stringify(body)).toBe('audio.unreadable')
      expect(error?.status).toBe(400)
      expect(error?.param).toBe('file')
      expect(error?.message).toContain('not audio svc can read (wav, mp3, ogg, flac, m4a, webm…)')
    }
  })

  it('leaves the server’s own failures to the generic reading', () => {
    expect(normaliseWhisperError(500, { error: 'failed to process audio' })).toBeUndefined()
    expect(normaliseWhisperError(400, 'Invalid request')).toBeUndefined()
    expect(normaliseWhisperError(200, { error: 'FFmpeg conversion failed.' })).toBeUndefined()
  })
})
