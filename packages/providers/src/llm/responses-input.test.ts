import { describe, expect, it } from 'vitest'
import { responsesInput } from './responses-input'

describe('responsesInput', () => {
  it('leaves input the engine reads as it is (no copy)', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: 'yo' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 't' }] },
    ]
    expect(responsesInput(input)).toBeUndefined()
    expect(responsesInput('hi')).toBeUndefined()
  })

  it('types role items as messages, fills reasoning content from the summary, drops empty reasoning', () => {
    const out = responsesInput([
      { role: 'user', content: 'knock knock.' },
      { role: 'assistant', content: 'Who is there?' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [
          { type: 'summary_text', text: 'A' },
          { type: 'summary_text', text: 'B' },
        ],
      },
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'x' },
      { role: 'user', content: 'Orange.' },
    ])
    expect(out).toEqual([
      { role: 'user', content: 'knock knock.' },
      { role: 'assistant', content: 'Who is there?', type: 'message' },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: expect.any(Array),
        content: [{ type: 'reasoning_text', text: 'A\n\nB' }],
      },
      { role: 'user', content: 'Orange.' },
    ])
  })

  it('refuses item_reference naming the item', () => {
    expect(() =>
      responsesInput([
        { role: 'user', content: 'hi' },
        { type: 'item_reference', id: 'msg_1' },
      ]),
    ).toThrow(expect.objectContaining({ code: 'request.invalid', param: 'input[1]' }))
  })
})
