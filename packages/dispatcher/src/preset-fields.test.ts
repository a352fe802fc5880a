import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import type { Endpoint } from '@svc/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DispatchHarness, startDispatchHarness } from '../test/dispatch-harness'
import type { RequestPresets } from './dispatch-types'

/**
 * The dispatcher's side of presets (the table itself is @svc/providers' and tested there): a preset's
 * name resolves to the engine it runs on, the upstream gets the body the presets made, and a request
 * no preset applies to goes on byte for byte.
 */
const HI = [{ role: 'user', content: 'hi' }]

describe('presets on the dispatcher', () => {
  let h: DispatchHarness
  const asked: { model: string; endpoint: Endpoint }[] = []
  const presets: RequestPresets = {
    resolveAlias: (model) => ({ fast: 'qwen', 'fast:v': 'qwen' })[model],
    applyRequestFields(model, endpoint, body) {
      asked.push({ model, endpoint })
      if (model !== 'fast' && model !== 'qwen') return undefined
      const { logit_bias: _stripped, ...rest } = body
      return { ...rest, max_tokens: 3 }
    },
  }

  beforeAll(async () => {
    h = await startDispatchHarness({ presets })
  })
  afterAll(async () => {
    await h[Symbol.asyncDispose]()
  })

  const send = (body: string) =>
    fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })

  it("sends an alias's request to the slot holding its engine, with the preset's fields and the alias as model", async () => {
    const res = await send(
      JSON.stringify({ model: 'fast', messages: HI, max_tokens: 50, logit_bias: { 1: 5 } }),
    )
    expect(res.status).toBe(200)
    expect(JSON.parse(h.seen.at(-1)!.body)).toEqual({ model: 'fast', messages: HI, max_tokens: 3 })
    expect(asked.at(-1)).toEqual({ model: 'fast', endpoint: 'chat' })
  })

  it('asks for the fields of the model a named slot holds', async () => {
    await send(JSON.stringify({ model: 'primary', messages: HI }))
    expect(asked.at(-1)).toEqual({ model: 'qwen', endpoint: 'chat' })
    expect(JSON.parse(h.seen.at(-1)!.body)).toMatchObject({ model: 'primary', max_tokens: 3 })
  })

  it("forwards the client's bytes untouched when no preset applies", async () => {
    const raw = '{"model":"fast:v",  "messages":[{"role":"user","content":"hi"}] ,"max_tokens":7}'
    const res = await send(raw)
    expect(res.status).toBe(200)
    expect(h.seen.at(-1)!.body).toBe(raw)
  })

  it("answers with the name the client sent, not the engine's, whole and streamed", async () => {
    const post = (body: unknown) =>
      fetch(`${h.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    h.route('/v1/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ model: 'qwen', choices: [] }))
    })
    expect(await (await post({ model: 'fast', prompt: 'x' })).json()).toEqual({ model: 'fast', choices: [] })
    expect(await (await post({ model: 'qwen', prompt: 'x' })).json()).toEqual({ model: 'qwen', choices: [] })
    h.route('/v1/completions', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('data: {"model":"qwen","choices":[]}\n\ndata: [DONE]\n\n')
    })
    const streamed = await (await post({ model: 'fast', prompt: 'x', stream: true })).text()
    expect(streamed).toContain('"model":"fast"')
    expect(streamed).not.toContain('qwen')
    expect(streamed).toContain('data: [DONE]')
  })

  it('applies the fields on the in-process path the Ollama API takes', async () => {
    const req = new IncomingMessage(new Socket())
    const out = await h.dispatcher.call(
      {
        path: '/v1/chat/completions',
        body: { model: 'fast', messages: HI, max_tokens: 40 },
        requestId: 'call-1',
        signal: new AbortController().signal,
        route: '/api/chat',
        req,
      },
      async (response, info) => ({ body: await response.json(), info }),
    )
    expect(out.info.model).toBe('qwen')
    expect(JSON.parse(h.seen.at(-1)!.body)).toEqual({ model: 'fast', messages: HI, max_tokens: 3 })
  })
})
