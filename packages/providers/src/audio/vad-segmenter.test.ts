import { describe, expect, it } from 'vitest'
import { createSegmenter, type VadEvent } from './vad-segmenter'

const FRAME = 512 // 32 ms at 16 kHz

/** Runs the segmenter over one probability per frame; each frame's samples all hold its index. */
function run(probabilities: number[], options = {}): VadEvent[] {
  const segmenter = createSegmenter(FRAME, options)
  const events = probabilities.flatMap((p, i) => segmenter.frame(new Float32Array(FRAME).fill(i), p))
  return [...events, ...segmenter.end()]
}

const frames = (n: number, p: number) => Array<number>(n).fill(p)

describe('createSegmenter', () => {
  it('reports a segment where speech starts and ends, once the pause is long enough', () => {
    // 10 silent frames (320 ms), 20 speech frames (640 ms), 20 silent frames (640 ms).
    const events = run([...frames(10, 0.02), ...frames(20, 0.9), ...frames(20, 0.02)], {
      minSilenceMs: 500,
      speechPadMs: 64,
    })
    expect(events.map((e) => e.type)).toEqual(['speech_started', 'speech_stopped'])
    expect(events[0]).toEqual({ type: 'speech_started', ms: 320 })
    const stopped = events[1]
    if (stopped?.type !== 'speech_stopped') throw new Error('no stop')
    expect(stopped.startMs).toBe(320)
    expect(stopped.endMs).toBe(960)
    // The pause is confirmed after 16 silent frames (512 ms ≥ 500 ms).
    expect(stopped.ms).toBe(960 + 512)
    // Padding: 2 frames before and after the speech.
    expect(stopped.audio.length).toBe(24 * FRAME)
    expect(stopped.audio[0]).toBe(8)
    expect(stopped.audio.at(-1)).toBe(31)
  })

  it('keeps one segment across a pause shorter than minSilenceMs', () => {
    const events = run([...frames(10, 0.9), ...frames(5, 0.02), ...frames(10, 0.9), ...frames(20, 0.02)])
    expect(events.filter((e) => e.type === 'speech_stopped')).toHaveLength(1)
  })

  it('splits at each long pause, in order', () => {
    const speech = frames(10, 0.9)
    const pause = frames(25, 0.02)
    const events = run([...speech, ...pause, ...speech, ...pause, ...speech])
    const stops = events.filter((e) => e.type === 'speech_stopped')
    expect(stops.map((e) => [e.startMs, e.endMs])).toEqual([
      [0, 320],
      [1120, 1440],
      [2240, 2560],
    ])
    expect(events.map((e) => e.type)).toEqual([
      'speech_started',
      'speech_stopped',
      'speech_started',
      'speech_stopped',
      'speech_started',
      'speech_stopped',
    ])
  })

  it('treats a probability between the two thresholds as still speaking', () => {
    // 0.4 is under the 0.5 that starts speech but over the 0.35 that ends it.
    const events = run([...frames(5, 0.9), ...frames(30, 0.4), ...frames(20, 0.02)])
    const stops = events.filter((e) => e.type === 'speech_stopped')
    expect(stops.map((e) => e.endMs)).toEqual([35 * 32])
  })

  it('drops a blip shorter than minSpeechMs without any event', () => {
    expect(run([...frames(10, 0.02), 0.9, 0.9, ...frames(30, 0.02)])).toEqual([])
  })

  it('closes an open segment at the end of the audio', () => {
    const events = run([...frames(3, 0.02), ...frames(10, 0.9), ...frames(4, 0.02)])
    const stop = events.at(-1)
    expect(stop).toMatchObject({ type: 'speech_stopped', startMs: 96, endMs: 416, ms: 544 })
  })

  it('refuses options out of range', () => {
    expect(() => createSegmenter(FRAME, { threshold: 1.5 })).toThrow(RangeError)
    expect(() => createSegmenter(FRAME, { minSilenceMs: -1 })).toThrow(RangeError)
    expect(() => createSegmenter(FRAME, { sampleRate: 24000 as 16000 })).toThrow(RangeError)
  })
})
