import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DispatchHarness, post, startDispatchHarness } from '../test/dispatch-harness'

const chat = (model?: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] })

describe('the dispatcher resolves `model`', () => {
  let h: DispatchHarness
  beforeAll(async () => {
    h = await startDispatchHarness({ loads: { primary: 'qwen', embed: 'nomic' }, known: ['gemma'] })
  })
  afterAll(async () => {
    await h[Symbol.asyncDispose]()
  })

  it('sends a slot name to the slot, with the body as the client sent it', async () => {
    const res = await post(h, '/v1/chat/completions', chat('primary'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ path: '/v1/chat/completions', model: 'primary' })
    expect(res.headers.get('x-request-id')).toBe('req-1')
  })

  it('sends a registry ref to the slot that holds it', async () => {
    const res = await post(h, '/v1/embeddings', { model: 'nomic', input: 'hi' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ path: '/v1/embeddings', model: 'nomic' })
  })

  it('sends a hosted ref to its upstream with the model rewritten and the key added', async () => {
    const before = h.hostedSeen.length
    const res = await post(h, '/v1/chat/completions', chat('cloud/gpt-x'), {
      headers: { 'content-type': 'application/json', authorization: 'Bearer client-secret' },
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ path: '/v1/chat/completions', model: 'gpt-x' })
    const seen = h.hostedSeen[before]!
    expect(seen.headers.authorization).toBe('Bearer sk-test')
    expect(seen.headers.cookie).toBeUndefined()
  })

  it('answers 409 model.not_loaded for a known ref no slot holds, 404 for an unknown one', async () => {
    const notLoaded = await post(h, '/v1/chat/completions', chat('gemma'))
    expect(notLoaded.status).toBe(409)
    expect((await notLoaded.json()).error).toMatchObject({ code: 'model.not_loaded', param: 'model' })
    const unknown = await post(h, '/v1/chat/completions', chat('nobody'))
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error).toMatchObject({ code: 'model.not_found', param: 'model' })
  })

  it('refuses a request without model, and one for an endpoint the slot does not serve', async () => {
    const missing = await post(h, '/v1/chat/completions', chat())
    expect(missing.status).toBe(400)
    expect((await missing.json()).error).toMatchObject({ code: 'request.invalid', param: 'model' })
    const rerank = await post(h, '/v1/rerank', { model: 'primary', query: 'q', documents: ['a'] })
    expect(rerank.status).toBe(400)
    expect((await rerank.json()).error.message).toContain('does not serve rerank')
  })

  it('answers model.not_loaded for a slot that holds nothing, and pins images to img', async () => {
    const idle = await post(h, '/v1/chat/completions', chat('img'))
    expect(idle.status).toBe(409)
    expect((await idle.json()).error.code).toBe('model.not_loaded')
    const image = await post(h, '/v1/images/generations', { model: 'primary', prompt: 'a cat' })
    expect(image.status).toBe(404)
    expect((await image.json()).error.code).toBe('model.not_found')
  })
})
