/**
 * The voice-activity detector on real speech: espeak-ng sentences with pauses of known length,
 * decoded by the real ffmpeg, cut by the real Silero model. The boundaries must fall within 300 ms
 * of where each sentence's sound really starts and ends (issue 41's done-when).
 */
import { SvcError } from '@svc/core'
import { programAvailable, type SpokenPauses, speakWithPauses } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { createVad, decodeAudio, splitAtPauses, type VadEvent } from '../src/audio/index'

const parts =
  programAvailable('espeak-ng', 'run ./scripts/setup.sh (apt: espeak-ng)') &&
  programAvailable('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)')

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Streaming speech arrives in pieces.',
  'This is the third and final sentence of the test.',
]

describe.skipIf(!parts)('the VAD on real speech', () => {
  let spoken: SpokenPauses

  beforeAll(async () => {
    spoken = await speakWithPauses(SENTENCES, { pauseMs: 1200 })
  }, 60_000)

  it('decodes a WAV upload to the same 16 kHz samples', async () => {
    const decoded = await decodeAudio(spoken.wav)
    expect(decoded.length).toBe(spoken.samples.length)
    let worst = 0
    for (let i = 0; i < decoded.length; i += 7) {
      worst = Math.max(worst, Math.abs((decoded[i] as number) - (spoken.samples[i] as number)))
    }
    expect(worst).toBeLessThan(1e-3)
  })

  it('refuses bytes that are not audio with audio.unreadable', async () => {
    const error = await decodeAudio(new TextEncoder().encode('not audio at all')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({ code: 'audio.unreadable', status: 400 })
  })

  it('cuts one segment per sentence, each boundary within 300 ms of the pause', async () => {
    const seen: number[] = []
    const segments = await splitAtPauses(spoken.samples, { onSegment: (s) => seen.push(s.startMs) })
    expect(segments).toHaveLength(SENTENCES.length)
    expect(seen).toEqual(segments.map((s) => s.startMs))
    for (const [i, segment] of segments.entries()) {
      const truth = spoken.spans[i]
      if (!truth) throw new Error('no truth')
      expect(Math.abs(segment.startMs - truth.startMs)).toBeLessThanOrEqual(300)
      expect(Math.abs(segment.endMs - truth.endMs)).toBeLessThanOrEqual(300)
      // The segment's audio is its speech plus the padding (300 ms a side by default).
      const ms = (segment.audio.length / 16000) * 1000
      expect(ms).toBeGreaterThanOrEqual(segment.endMs - segment.startMs)
      expect(ms).toBeLessThanOrEqual(segment.endMs - segment.startMs + 600 + 64)
    }
  }, 120_000)

  it('reports the same boundaries when the audio arrives in small pushes', async () => {
    const vad = createVad()
    const events: VadEvent[] = []
    // 20 ms chunks, as a realtime client sends them.
    for (let at = 0; at < spoken.samples.length; at += 320) {
      events.push(...(await vad.push(spoken.samples.subarray(at, at + 320))))
    }
    events.push(...(await vad.flush()))
    expect(events.map((e) => e.type)).toEqual(SENTENCES.flatMap(() => ['speech_started', 'speech_stopped']))
    const whole = await splitAtPauses(spoken.samples)
    const stops = events.filter((e) => e.type === 'speech_stopped')
    expect(stops.map((e) => [e.startMs, e.endMs])).toEqual(whole.map((s) => [s.startMs, s.endMs]))
    // A segment is reported once its pause is confirmed, before the next sentence starts.
    for (const [i, stop] of stops.entries()) {
      expect(stop.ms).toBeGreaterThan(stop.endMs)
      const next = spoken.spans[i + 1]
      if (next) expect(stop.ms).toBeLessThan(next.startMs)
    }
  }, 120_000)

  it('finds no speech in silence', async () => {
    expect(await splitAtPauses(new Float32Array(16000 * 2))).toEqual([])
  })
})
