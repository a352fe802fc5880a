/**
 * Tokens limited to models (docs/auth.md#tokens-limited-to-models), end to end: svc in-process with
 * auth on, the `primary` slot running a real llama-server on a tiny GGUF (ref `tiny-chat`). A token
 * limited to `["tiny-chat*"]` is refused every other model with 403 `auth.forbidden` on every surface
 * (each in its own error shape), reaches its own (and `primary`, the slot that holds it) as usual,
 * and sees only those in `/v1/models` and `/api/tags`.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { mintTokens, useAuthServer } from './auth-harness'
import { LIGHT_ARGS, llamaServerAvailable } from './live'

const available = llamaServerAvailable()

/** The message of an error body in any surface's shape (svc's, Anthropic's, Ollama's). */
function messageOf(json: Record<string, unknown>): unknown {
  const error = json.error
  return typeof error === 'string' ? error : (error as { message?: unknown } | undefined)?.message
}

describe.skipIf(!available)('a token limited to models', () => {
  let gguf = ''
  const server = useAuthServer({}, async ({ configDir, stateDir }) => {
    await writeSvcConfig(configDir, {
      // load_on_request: a request for a known ref loads it here (the path a refusal must close);
      // max_loaded = 1: into primary itself, never a spare slot beside it.
      slots: {
        primary: `backend = "cpu"\nruntime = "process"\nrestart = "no"\nload_on_request = true\nmax_loaded = 1\n${LIGHT_ARGS}`,
        // A second chat slot: listed in /v1/models while offline (an offline embed slot is not).
        other: 'provider = "llm"\nbackend = "cpu"\nruntime = "process"\n',
      },
    })
    await mkdir(stateDir, { recursive: true })
    gguf = (await writeTinyGguf(join(stateDir, 'tiny-chat.gguf'), { role: 'chat' })).path
  })
  let admin = ''
  let kid = ''
  let unlimited = ''

  const request = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      },
      ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
    })
    const text = await res.text()
    let json: Record<string, unknown> = {}
    try {
      json = JSON.parse(text)
    } catch {}
    return { status: res.status, text, json }
  }

  beforeAll(async () => {
    const [a, k, u] = await mintTokens(server.configDir, [
      { label: 'admin', scope: 'admin' },
      { label: 'kid', models: ['tiny-chat*'] },
      { label: 'grown-up' },
    ])
    admin = a!.token
    kid = k!.token
    unlimited = u!.token
    const load = await request(admin, 'POST', '/api/slots/primary/load?wait=true', { model: gguf })
    expect(load.status, load.text).toBe(200)
  }, 120_000)

  const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 })
  const message = (model: string) => ({ ...chat(model), max_tokens: 2 })
  const form = (model: string) => {
    const data = new FormData()
    data.set('model', model)
    data.set('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav')
    return data
  }

  /** Every surface, as a request naming `model` (`undefined`: the body leaves `model` out). */
  const SURFACES: [string, string, (model: string) => unknown][] = [
    ['POST', '/v1/chat/completions', chat],
    ['POST', '/v1/completions', (model) => ({ model, prompt: 'Hi', max_tokens: 2 })],
    ['POST', '/v1/embeddings', (model) => ({ model, input: 'Hi' })],
    ['POST', '/v1/rerank', (model) => ({ model, query: 'a', documents: ['a', 'b'] })],
    ['POST', '/v1/audio/speech', (model) => ({ model, input: 'Hi', voice: 'af_heart' })],
    ['POST', '/v1/audio/transcriptions', form],
    ['POST', '/v1/images/generations', (model) => ({ model, prompt: 'a cat' })],
    ['POST', '/v1/responses', (model) => ({ model, input: 'Hi', max_output_tokens: 2 })],
    ['POST', '/v1/messages', message],
    ['POST', '/v1/messages/count_tokens', (model) => ({ model, messages: chat(model).messages })],
    ['POST', '/api/chat', (model) => ({ model, messages: chat(model).messages, stream: false })],
    ['POST', '/api/generate', (model) => ({ model, prompt: 'Hi', stream: false })],
    ['POST', '/api/embed', (model) => ({ model, input: 'Hi' })],
    ['POST', '/api/embeddings', (model) => ({ model, prompt: 'Hi' })],
    ['POST', '/api/show', (model) => ({ model })],
  ]

  it.each(SURFACES)(
    'refuses other models on %s %s with 403 auth.forbidden naming the model',
    async (method, path, body) => {
      for (const model of ['embed', 'stt', 'tts', 'img', 'no-such-model', 'primary-not']) {
        const r = await request(kid, method, path, body(model))
        expect(r.status, `${model}: ${r.text}`).toBe(403)
        expect(messageOf(r.json)).toBe(`this token may not use model "${model}"`)
        if (path.startsWith('/v1/messages'))
          expect(r.json).toMatchObject({
            type: 'error',
            error: { type: 'permission_error', svc_code: 'auth.forbidden' },
          })
        else if (path.startsWith('/api/'))
          expect(r.json).toEqual({
            error: expect.stringContaining('may not use model'),
            code: 'auth.forbidden',
          })
        else expect(r.json).toMatchObject({ error: { code: 'auth.forbidden', param: 'model' } })
      }
    },
  )

  it('refuses an image request that names no model: it stands for the img slot', async () => {
    const r = await request(kid, 'POST', '/v1/images/generations', { prompt: 'a cat' })
    expect(r.status, r.text).toBe(403)
    expect(messageOf(r.json)).toBe('this token may not use model "img"')
  })

  it.each(['tiny-chat', 'primary'])(
    'answers its own model, named %s, on the chat surfaces as for anyone',
    async (model) => {
      for (const [method, path, body] of SURFACES.filter(([, p]) =>
        [
          '/v1/chat/completions',
          '/v1/completions',
          '/v1/responses',
          '/v1/messages',
          '/v1/messages/count_tokens',
          '/api/chat',
          '/api/generate',
          '/api/show',
        ].includes(p),
      )) {
        const r = await request(kid, method, path, body(model))
        expect(r.status, `${path} ${model}: ${r.text}`).toBe(200)
      }
      // Surfaces a chat model does not serve answer as they do for an unlimited token: never 403.
      for (const [method, path, body] of SURFACES.filter(([, p]) =>
        ['/v1/embeddings', '/api/embed'].includes(p),
      )) {
        const mine = await request(kid, method, path, body(model))
        const theirs = await request(unlimited, method, path, body(model))
        expect(mine.status, mine.text).toBe(theirs.status)
        expect(mine.status).not.toBe(403)
      }
    },
  )

  it('never loads a model it may not use: a ref on disk stays unloaded, the slot keeps its model', async () => {
    const other = join(server.stateDir, 'other-model.gguf')
    await writeFile(other, 'not even looked at')
    const r = await request(kid, 'POST', '/v1/chat/completions', chat(other))
    expect(r.status).toBe(403)
    const slot = await request(admin, 'GET', '/api/slots/primary')
    expect(slot.json).toMatchObject({
      model: 'tiny-chat',
      state: expect.stringMatching(/ready|idle|serving/),
    })
  })

  it('lists only its models in /v1/models and /api/tags; others are 404 by id', async () => {
    const ids = async (token: string) =>
      ((await request(token, 'GET', '/v1/models')).json.data as { id: string }[]).map((m) => m.id).sort()
    expect(await ids(kid)).toEqual(['primary', 'tiny-chat'])
    expect(await ids(unlimited)).toEqual(expect.arrayContaining(['primary', 'tiny-chat', 'other']))
    const tags = (await request(kid, 'GET', '/api/tags')).json.models as { name: string }[]
    expect(tags.map((m) => m.name).sort()).toEqual(['primary:latest', 'tiny-chat:latest'])
    expect((await request(kid, 'GET', '/v1/models/tiny-chat')).status).toBe(200)
    expect((await request(kid, 'GET', '/v1/models/other')).json).toMatchObject({
      error: { code: 'model.not_found' },
    })
    expect((await request(unlimited, 'GET', '/v1/models/other')).status).toBe(200)
  })

  // Last: it leaves another model in primary.
  it('never loads a known ref it may not use on request; a token without models would', async () => {
    const other = (await writeTinyGguf(join(server.stateDir, 'other-chat.gguf'), { role: 'chat' })).path
    // Known to svc (registered by a load), then primary holds tiny-chat again.
    for (const model of [other, gguf]) {
      const load = await request(admin, 'POST', '/api/slots/primary/load?wait=true', { model })
      expect(load.status, load.text).toBe(200)
    }
    const before = (await request(admin, 'GET', '/api/slots/primary')).json
    expect(before).toMatchObject({ model: 'tiny-chat' })
    const refused = await request(kid, 'POST', '/v1/chat/completions', chat('other-chat'))
    expect(refused.status, refused.text).toBe(403)
    const after = (await request(admin, 'GET', '/api/slots/primary')).json
    expect(after).toMatchObject({ model: 'tiny-chat', upstream: before.upstream })
    const loaded = await request(unlimited, 'POST', '/v1/chat/completions', chat('other-chat'))
    expect(loaded.status, loaded.text).toBe(200)
    expect((await request(admin, 'GET', '/api/slots/primary')).json).toMatchObject({ model: 'other-chat' })
  }, 120_000)
})
