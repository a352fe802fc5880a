import { describe, expect, it } from 'vitest'
import { createTurnRecorder, type SpokenTurn } from './turn-recorder'

const event = (type: string, fields: Record<string, unknown> = {}) => JSON.stringify({ type, ...fields })

function record(events: string[], finish = false): SpokenTurn[] {
  const turns: SpokenTurn[] = []
  const recorder = createTurnRecorder((turn) => turns.push(turn))
  for (const e of events) recorder.observe(e)
  if (finish) recorder.finish()
  return turns
}

describe('createTurnRecorder', () => {
  it('writes a turn once the answer is done and the words it answers are known', () => {
    const turns = record([
      event('input_audio_buffer.committed', { item_id: 'i1' }),
      event('conversation.item.input_audio_transcription.completed', {
        item_id: 'i1',
        transcript: ' Hello there. ',
      }),
      event('response.created', { response: { id: 'r1' } }),
      event('response.output_audio.delta', { delta: 'AAAA'.repeat(300) }),
      event('response.output_audio_transcript.delta', { delta: 'Hi, ' }),
      event('response.output_audio_transcript.delta', { delta: 'how can I help?' }),
      event('response.done', { response: { id: 'r1', status: 'completed' } }),
    ])
    expect(turns).toEqual([{ heard: 'Hello there.', answer: 'Hi, how can I help?', status: 'completed' }])
  })

  it('waits for a transcription that arrives after the answer, and keeps turns in order', () => {
    const turns: SpokenTurn[] = []
    const recorder = createTurnRecorder((turn) => turns.push(turn))
    recorder.observe(event('input_audio_buffer.committed', { item_id: 'a' }))
    recorder.observe(event('response.created'))
    recorder.observe(event('response.output_text.delta', { delta: 'first answer' }))
    recorder.observe(event('response.done', { response: { status: 'cancelled' } }))
    expect(turns).toEqual([])
    recorder.observe(event('input_audio_buffer.committed', { item_id: 'b' }))
    recorder.observe(
      event('conversation.item.input_audio_transcription.completed', { item_id: 'b', transcript: 'two' }),
    )
    recorder.observe(event('response.created'))
    recorder.observe(event('response.done', { response: { status: 'completed' } }))
    expect(turns).toEqual([])
    recorder.observe(
      event('conversation.item.input_audio_transcription.completed', { item_id: 'a', transcript: 'one' }),
    )
    expect(turns).toEqual([
      { heard: 'one', answer: 'first answer', status: 'cancelled' },
      { heard: 'two', answer: '', status: 'completed' },
    ])
  })

  it('writes what it has when the session ends before a transcription, and ignores garbage', () => {
    const turns = record(
      [
        'not json',
        event('input_audio_buffer.committed', { item_id: 'x' }),
        event('response.created'),
        event('response.output_audio_transcript.delta', { delta: 'an answer' }),
        event('response.done', { response: { status: 'completed' } }),
      ],
      true,
    )
    expect(turns).toEqual([{ heard: '', answer: 'an answer', status: 'completed' }])
  })

  it('writes an answer cut short by the end of the session as cancelled, with what was said of it', () => {
    const turns = record(
      [
        event('input_audio_buffer.committed', { item_id: 'q' }),
        event('conversation.item.input_audio_transcription.completed', {
          item_id: 'q',
          transcript: 'Tell me a story',
        }),
        event('response.created'),
        event('response.output_audio_transcript.delta', { delta: 'Once upon' }),
      ],
      true,
    )
    expect(turns).toEqual([{ heard: 'Tell me a story', answer: 'Once upon', status: 'cancelled' }])
  })
})
