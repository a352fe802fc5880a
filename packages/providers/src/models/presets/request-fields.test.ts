import { describe, expect, it } from 'vitest'
import { applyFields, type FieldRule } from './request-fields'

function rules(entries: Record<string, FieldRule>): Map<string, FieldRule> {
  return new Map(Object.entries(entries))
}

const force = (value: unknown): FieldRule => ({ kind: 'force', value })
const fallback = (value: unknown): FieldRule => ({ kind: 'default', value })
const strip: FieldRule = { kind: 'strip' }

describe('applyFields', () => {
  it('forces max_tokens on chat, replacing the other spellings a client may send', () => {
    const body = { model: 'm', max_completion_tokens: 50, n_predict: 40, messages: [] }
    expect(applyFields(rules({ max_tokens: force(3) }), 'chat', body)).toEqual({
      model: 'm',
      max_tokens: 3,
      messages: [],
    })
    expect(body.max_completion_tokens).toBe(50) // the client's body is never changed
  })

  it('spells max_tokens as max_output_tokens on the Responses API', () => {
    const out = applyFields(rules({ max_tokens: force(3) }), 'responses', { max_output_tokens: 99 })
    expect(out).toEqual({ max_output_tokens: 3 })
  })

  it('keeps max_tokens on Messages and spells stop as the list stop_sequences', () => {
    const out = applyFields(rules({ max_tokens: force(3), stop: force('END') }), 'messages', {
      max_tokens: 1024,
      stop_sequences: ['x'],
    })
    expect(out).toEqual({ max_tokens: 3, stop_sequences: ['END'] })
  })

  it('lets the client win over a default, in any spelling', () => {
    const f = rules({ max_tokens: fallback(5), temperature: fallback(0.6) })
    expect(applyFields(f, 'chat', { max_tokens: 2, temperature: 1 })).toBeUndefined()
    expect(applyFields(f, 'responses', { max_output_tokens: 2 })).toEqual({
      max_output_tokens: 2,
      temperature: 0.6,
    })
    expect(applyFields(f, 'chat', {})).toEqual({ max_tokens: 5, temperature: 0.6 })
  })

  it("merges a forced object into the client's, the preset's keys winning", () => {
    const f = rules({ chat_template_kwargs: force({ enable_thinking: false }) })
    const out = applyFields(f, 'chat', { chat_template_kwargs: { enable_thinking: true, other: 1 } })
    expect(out).toEqual({ chat_template_kwargs: { enable_thinking: false, other: 1 } })
  })

  it('completes a default object with the keys the client left out', () => {
    const f = rules({ chat_template_kwargs: fallback({ enable_thinking: false, a: 1 }) })
    const out = applyFields(f, 'chat', { chat_template_kwargs: { enable_thinking: true } })
    expect(out).toEqual({ chat_template_kwargs: { enable_thinking: true, a: 1 } })
  })

  it('strips every spelling of a field, and does nothing when the client sent none', () => {
    const f = rules({ max_tokens: strip, logit_bias: strip })
    expect(applyFields(f, 'chat', { max_completion_tokens: 9, logit_bias: { 1: 2 }, top_p: 1 })).toEqual({
      top_p: 1,
    })
    expect(applyFields(f, 'chat', { top_p: 1 })).toBeUndefined()
  })

  it('leaves endpoints that do not generate alone', () => {
    const f = rules({ max_tokens: force(3) })
    for (const endpoint of ['embeddings', 'rerank', 'speech', 'messages-count-tokens'] as const)
      expect(applyFields(f, endpoint, { input: 'x' })).toBeUndefined()
    expect(applyFields(f, 'completions', { prompt: 'x' })).toEqual({ prompt: 'x', max_tokens: 3 })
  })
})
