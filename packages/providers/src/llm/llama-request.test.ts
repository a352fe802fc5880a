import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { carryToLlamaServer } from './llama-request'

const params = { type: 'object', properties: { days: { type: 'integer' } } }

describe('carryToLlamaServer', () => {
  it('leaves a body without text.format or a named tool alone (no copy)', () => {
    expect(carryToLlamaServer('chat', { model: 'm', messages: [], tool_choice: 'required' })).toBeUndefined()
    expect(
      carryToLlamaServer('responses', { model: 'm', input: 'hi', text: { format: { type: 'text' } } }),
    ).toBeUndefined()
  })

  it('turns Responses text.format json_schema into the response_format the engine honours', () => {
    const out = carryToLlamaServer('responses', {
      input: 'hi',
      text: { format: { type: 'json_schema', name: 'pair', schema: params, strict: true } },
    })
    expect(out?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'pair', schema: params, strict: true },
    })
  })

  it('narrows tools to the one a tool_choice names and requires a call, on every surface', () => {
    const chat = carryToLlamaServer('chat', {
      tools: [
        { type: 'function', function: { name: 'a' } },
        { type: 'function', function: { name: 'b' } },
      ],
      tool_choice: { type: 'function', function: { name: 'b' } },
    })
    expect(chat).toMatchObject({ tools: [{ function: { name: 'b' } }], tool_choice: 'required' })
    const responses = carryToLlamaServer('responses', {
      tools: [
        { type: 'function', name: 'a' },
        { type: 'function', name: 'b' },
      ],
      tool_choice: { type: 'function', name: 'a' },
    })
    expect(responses).toMatchObject({ tools: [{ name: 'a' }], tool_choice: 'required' })
    const messages = carryToLlamaServer('messages', {
      tools: [{ name: 'a' }, { name: 'b' }],
      tool_choice: { type: 'tool', name: 'b' },
    })
    expect(messages).toMatchObject({ tools: [{ name: 'b' }], tool_choice: { type: 'tool', name: 'b' } })
  })

  it('refuses a tool_choice naming a tool that is not among tools', () => {
    expect(() =>
      carryToLlamaServer('messages', { tools: [{ name: 'a' }], tool_choice: { type: 'tool', name: 'zz' } }),
    ).toThrow(SvcError)
  })
})
