/**
 * Auth on, the official clients of the other surfaces: each refuses a missing or bad key in its own
 * error shape (so the SDK raises its own exception class), Anthropic's `x-api-key` is a token, and
 * svc's dotted code stays visible. No model is loaded: passing auth shows as 404 model.not_found.
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { beforeAll, describe, expect, it } from 'vitest'
import { send, useAuthServer } from './auth-harness'

const MESSAGE = { model: 'nope', max_tokens: 5, messages: [{ role: 'user' as const, content: 'hi' }] }

describe('the Responses and Messages APIs with auth on', () => {
  const server = useAuthServer()
  let v1Only: string
  let readOnly: string
  beforeAll(async () => {
    v1Only = (await server.mint('v1-only')).token
    readOnly = (await server.mint('read-only')).token
  })
  const anthropic = (apiKey: string) => new Anthropic({ baseURL: server.url, apiKey, maxRetries: 0 })
  const openai = (apiKey: string) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 })

  it("raises Anthropic's AuthenticationError for a bad key, with svc's code", async () => {
    const error = await anthropic('svc_AAAAAAAAAAAA.wrong')
      .messages.create(MESSAGE)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError)
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', svc_code: 'auth.invalid' },
    })
  })

  it('takes a token in x-api-key (what Claude Code sends): past auth, the model is unknown', async () => {
    // This SDK version sends its apiKey as a bearer token; Claude Code and older SDKs send x-api-key.
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/messages/count_tokens',
      headers: { 'x-api-key': v1Only, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'nope', messages: MESSAGE.messages }),
    })
    expect(reply.status).toBe(404)
    expect(JSON.parse(reply.text)).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', svc_code: 'model.not_found' },
    })
  })

  it("refuses a scope that does not cover inference with Anthropic's PermissionDeniedError", async () => {
    const error = await anthropic(readOnly)
      .messages.create(MESSAGE)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError)
  })

  it("refuses no key on /v1/messages in Anthropic's shape and on /v1/responses in OpenAI's", async () => {
    const messages = await send(server.url, {
      method: 'POST',
      path: '/v1/messages',
      body: JSON.stringify(MESSAGE),
    })
    expect(messages.status).toBe(401)
    expect(JSON.parse(messages.text)).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error', svc_code: 'auth.required' },
    })
    const responses = await send(server.url, {
      method: 'POST',
      path: '/v1/responses',
      body: '{"model":"nope","input":"hi"}',
    })
    expect(responses.status).toBe(401)
    expect(JSON.parse(responses.text)).toMatchObject({ error: { code: 'auth.required' } })
  })

  it("raises openai's AuthenticationError on responses.create for a bad key", async () => {
    const error = await openai('svc_AAAAAAAAAAAA.wrong')
      .responses.create({ model: 'nope', input: 'hi' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error).toMatchObject({ code: 'auth.invalid' })
  })

  it('answers an unknown path under /v1/messages in the Anthropic shape too', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/messages/batches',
      headers: { 'x-api-key': v1Only },
      body: '{}',
    })
    expect(reply.status).toBe(404)
    expect(JSON.parse(reply.text)).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', svc_code: 'route.not_found' },
    })
  })
})
