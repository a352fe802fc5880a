import { describe, expect, it } from 'vitest'
import { apiFailure } from './svc-api'

function answer(status: number, error: Record<string, unknown>): Response {
  return new Response(JSON.stringify({ error }), { status, headers: { 'content-type': 'application/json' } })
}

describe('apiFailure', () => {
  it("blames the chat app's token for an auth refusal", async () => {
    const error = await apiFailure(answer(401, { code: 'auth.invalid', message: 'invalid token' }), true)
    expect(error.code).toBe('upstream.auth')
    expect(error.message).toContain('SVC_CHAT_API_TOKEN')
  })

  it('keeps the Hub refusing a gated model as what it is, not a token problem', async () => {
    const message = 'the Hugging Face Hub refused hf.co/meta/Gated-GGUF: set HF_TOKEN'
    const error = await apiFailure(answer(401, { code: 'hub.unauthorized', message }), true)
    expect(error.code).toBe('hub.unauthorized')
    expect(error.status).toBe(401)
    expect(error.message).toBe(message)
  })
})
