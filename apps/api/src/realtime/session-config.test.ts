import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { parseClientEvent } from './client-events'
import { applySessionPatch, newSessionConfig, renderSession } from './session-config'

const fresh = () => newSessionConfig('sess_1', 'primary', 1_000)

describe('realtime session settings', () => {
  it('starts as a realtime session with server VAD, audio out and the query model as chat model', () => {
    expect(renderSession(fresh())).toMatchObject({
      type: 'realtime',
      object: 'realtime.session',
      model: 'primary',
      output_modalities: ['audio'],
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
        },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' },
      },
    })
  })

  it('a switch to transcription makes the query model the stt model unless the update names one', () => {
    const stt = applySessionPatch(
      newSessionConfig('s', 'whisper-small', 0),
      { type: 'transcription' },
      'whisper-small',
    )
    expect(stt.transcription).toEqual({ model: 'whisper-small' })
    expect(renderSession(stt)).toMatchObject({
      type: 'transcription',
      object: 'realtime.transcription_session',
    })
    const named = applySessionPatch(
      fresh(),
      { type: 'transcription', audio: { input: { transcription: { model: 'stt', language: 'de' } } } },
      'primary',
    )
    expect(named.transcription).toEqual({ model: 'stt', language: 'de' })
  })

  it('keeps VAD settings not named in an update, and turns VAD off with null', () => {
    const tuned = applySessionPatch(fresh(), {
      audio: { input: { turn_detection: { type: 'server_vad', threshold: 0.7 } } },
    })
    expect(tuned.turnDetection).toMatchObject({
      threshold: 0.7,
      silenceDurationMs: 500,
      createResponse: true,
    })
    expect(applySessionPatch(tuned, { audio: { input: { turn_detection: null } } }).turnDetection).toBeNull()
  })

  it('refuses audio formats other than pcm16 at 24 kHz, naming the field', () => {
    const refuse = (format: { type?: string; rate?: number }) => {
      try {
        applySessionPatch(fresh(), { audio: { output: { format } } })
      } catch (error) {
        return error
      }
    }
    expect(refuse({ type: 'audio/pcmu' })).toMatchObject({
      code: 'request.invalid',
      param: 'session.audio.output.format',
    })
    expect(refuse({ type: 'audio/pcm', rate: 16000 })).toBeInstanceOf(SvcError)
    expect(refuse({ type: 'audio/pcm', rate: 24000 })).toBeUndefined()
  })
})

describe('client events', () => {
  it('reads a known event and refuses an unknown type, bad JSON and a bad field with request.invalid', () => {
    expect(parseClientEvent('{"type":"input_audio_buffer.commit","event_id":"e"}')).toEqual({
      event: { type: 'input_audio_buffer.commit', event_id: 'e' },
      eventId: 'e',
    })
    expect(parseClientEvent('{"type":"nope","event_id":"e2"}')).toMatchObject({
      eventId: 'e2',
      error: { code: 'request.invalid', param: 'type' },
    })
    expect(parseClientEvent('{').error).toMatchObject({ code: 'request.invalid' })
    expect(parseClientEvent('{"type":"input_audio_buffer.append","audio":5}').error).toMatchObject({
      code: 'request.invalid',
      param: 'audio',
    })
    expect(
      parseClientEvent(
        JSON.stringify({
          type: 'session.update',
          session: { audio: { input: { turn_detection: { type: 'server_vad', threshold: 1 } } } },
        }),
      ).error,
    ).toMatchObject({ param: 'session.audio.input.turn_detection.threshold' })
  })
})
