import { describe, expect, it } from 'vitest'
import { normaliseLlamaError } from './llama-errors'

describe('llama-server errors in svc’s words', () => {
  it('answers a prompt over the context as 400 context.too_long with both sizes and the fix', () => {
    const error = normaliseLlamaError(400, {
      error: {
        code: 400,
        message: 'request (2018 tokens) exceeds the available context size (256 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 2018,
        n_ctx: 256,
      },
    })
    expect(error?.code).toBe('context.too_long')
    expect(error?.status).toBe(400)
    expect(error?.message).toBe(
      "the prompt has 2018 tokens; the model runs with a context of 256 tokens: shorten the conversation, or raise the slot's context size (ctx_size)",
    )
  })

  it('leaves every other error to the generic reading', () => {
    expect(
      normaliseLlamaError(400, { error: { type: 'invalid_request_error', message: 'x' } }),
    ).toBeUndefined()
    expect(normaliseLlamaError(500, { error: { type: 'exceed_context_size_error' } })).toBeUndefined()
    expect(normaliseLlamaError(400, 'plain text')).toBeUndefined()
    expect(normaliseLlamaError(400, null)).toBeUndefined()
  })
})
