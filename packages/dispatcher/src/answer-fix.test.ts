import { describe, expect, it } from 'vitest'
import { answerFixFor } from './answer-fix'

describe('answerFixFor', () => {
  it('gives none for chat, and none for Messages without stop_sequences', () => {
    expect(answerFixFor('chat', { messages: [] })).toBeUndefined()
    expect(answerFixFor('messages', { messages: [] })).toBeUndefined()
    expect(answerFixFor('messages', { messages: [], stop_sequences: [] })).toBeUndefined()
  })

  it('Messages: end_turn with an asked stop_sequence becomes stop_sequence, in JSON and in message_delta', () => {
    const fix = answerFixFor('messages', { stop_sequences: ['X'] })!
    expect(fix.json({ stop_reason: 'end_turn', stop_sequence: 'X' })).toMatchObject({
      stop_reason: 'stop_sequence',
    })
    expect(fix.json({ stop_reason: 'end_turn', stop_sequence: 'Y' })).toMatchObject({
      stop_reason: 'end_turn',
    })
    const [event] = fix.event({
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: 'X' } },
    })
    expect(event?.data.delta).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'X' })
  })

  it('Responses: cut at max_output_tokens is incomplete; under it, completed with the required fields', () => {
    const fix = () => answerFixFor('responses', { max_output_tokens: 3, instructions: 'Be brief.' })!
    const message = { type: 'message', status: 'completed', content: [] }
    const cut = fix().json({ status: 'completed', output: [message], usage: { output_tokens: 3 } })
    expect(cut).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      completed_at: null,
    })
    expect(cut.output).toEqual([{ ...message, status: 'incomplete' }])
    const whole = fix().json({ status: 'completed', output: [], usage: { output_tokens: 2 } })
    expect(whole).toMatchObject({
      status: 'completed',
      incomplete_details: null,
      error: null,
      instructions: 'Be brief.',
      tools: [],
    })
    expect(whole.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 0 } })
  })

  it('Responses stream: numbers events, indexes items, adds the reasoning content part, ends incomplete when cut', () => {
    const fix = answerFixFor('responses', { max_output_tokens: 2 })!
    const events = [
      { event: 'response.created', data: { type: 'response.created', response: { id: 'resp_1' } } },
      {
        event: 'response.output_item.added',
        data: { type: 'response.output_item.added', item: { id: 'rs_1', type: 'reasoning' } },
      },
      {
        event: 'response.reasoning_text.delta',
        data: { type: 'response.reasoning_text.delta', item_id: 'rs_1', delta: 'a' },
      },
      {
        event: 'response.output_item.added',
        data: { type: 'response.output_item.added', item: { id: 'msg_1', type: 'message' } },
      },
      {
        event: 'response.output_text.delta',
        data: { type: 'response.output_text.delta', item_id: 'msg_1', delta: 'b' },
      },
      {
        event: 'response.completed',
        data: {
          type: 'response.completed',
          response: { status: 'completed', output: [], usage: { output_tokens: 2 } },
        },
      },
    ].flatMap((e) => fix.event(e))
    expect(events.map((e) => e.data.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(events[2]?.data).toMatchObject({
      type: 'response.content_part.added',
      output_index: 0,
      content_index: 0,
      part: { type: 'reasoning_text' },
    })
    expect(events[5]?.data).toMatchObject({ output_index: 1, content_index: 0 })
    expect(events[6]).toMatchObject({
      event: 'response.incomplete',
      data: { type: 'response.incomplete', response: { status: 'incomplete' } },
    })
    expect(events[0]?.data.response).toMatchObject({ output: [], incomplete_details: null })
  })

  it('Responses stream: a stream that already follows the spec keeps its indexes and gets no second content part', () => {
    const fix = answerFixFor('responses', {})!
    const events = [
      {
        data: {
          type: 'response.output_item.added',
          output_index: 0,
          item: { id: 'rs_1', type: 'reasoning' },
        },
      },
      {
        data: {
          type: 'response.content_part.added',
          item_id: 'rs_1',
          output_index: 0,
          content_index: 0,
          part: { type: 'reasoning_text', text: '' },
        },
      },
      {
        data: {
          type: 'response.reasoning_text.delta',
          item_id: 'rs_1',
          output_index: 0,
          content_index: 0,
          delta: 'a',
        },
      },
    ].flatMap((e) => fix.event(e))
    expect(events.map((e) => e.data.type)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
    ])
  })

  it("Messages stream: message_delta usage is made cumulative with message_start's input counts", () => {
    const fix = answerFixFor('messages', { stream: true })!
    const start = {
      type: 'message_start',
      message: { usage: { input_tokens: 4, cache_read_input_tokens: 2, output_tokens: 0 } },
    }
    fix.event({ event: 'message_start', data: start })
    const [delta] = fix.event({
      event: 'message_delta',
      data: { type: 'message_delta', delta: {}, usage: { output_tokens: 3 } },
    })
    expect(delta?.data.usage).toEqual({ input_tokens: 4, cache_read_input_tokens: 2, output_tokens: 3 })
  })
})
