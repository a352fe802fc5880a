/**
 * End to end: the official `ollama` JS client (only `host` changed) against svc's Ollama API in
 * front of real llama-server upstreams serving generated GGUFs, on svc's port and on the second
 * listener (`SVC_OLLAMA_PORT`).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, type TinyGguf, writeTinyGguf } from '@svc/testing'
import { Ollama } from 'ollama'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LIGHT_ARGS, llamaServerAvailable, loadOk } from './live'

const available = llamaServerAvailable()

/** The URL of the second listener, from svc's log line. */
function ollamaUrl(api: ApiProcess): string {
  const url = /"svc ollama API listening".*?"url":"([^"]+)"/.exec(api.output())?.[1]
  if (!url) throw new Error(`no Ollama listener in the log:\n${api.output().slice(-2000)}`)
  return url
}

describe.skipIf(!available)('the ollama client against svc and llama-server', () => {
  let dir: string
  let api: ApiProcess
  let client: Ollama
  let embed: TinyGguf

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-ollama-'))
    let chat: TinyGguf, json: TinyGguf
    ;[chat, embed, json] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' }),
      writeTinyGguf(join(dir, 'tiny-embed.gguf'), { role: 'embed', nEmbd: 96, nHead: 4 }),
      // A grammar ends the answer with EOS once the JSON is complete, so this model must be free to
      // emit it (the others suppress EOS so that every answer runs to its token limit).
      writeTinyGguf(join(dir, 'tiny-json.gguf'), { role: 'chat', stopAtEos: true }),
    ])
    api = await startApiWithConfig({
      slots: { primary: LIGHT_ARGS, embed: LIGHT_ARGS, json: `provider = "llm"\n${LIGHT_ARGS}` },
      env: { SVC_OLLAMA_PORT: '0' },
    })
    await Promise.all([
      loadOk(api, 'primary', chat.path),
      loadOk(api, 'embed', embed.path),
      loadOk(api, 'json', json.path),
    ])
    client = new Ollama({ host: api.url })
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('lists the slots and the refs as name:tag, and the loaded refs in ps', async () => {
    const names = (await client.list()).models.map((m) => m.name)
    expect(names).toEqual(expect.arrayContaining(['primary:latest', 'embed:latest', 'tiny-chat:latest']))
    expect(names).not.toContain('img:latest')
    const loaded = (await client.ps()).models.map((m) => m.name)
    expect(loaded).toEqual(expect.arrayContaining(['tiny-chat:latest', 'tiny-embed:latest']))
  })

  it('shows a model with its capabilities', async () => {
    const shown = await client.show({ model: 'primary:latest' })
    expect(shown.capabilities).toContain('completion')
    expect(shown.details.format).toBe('gguf')
    const embedding = await client.show({ model: 'tiny-embed' })
    expect(embedding.capabilities).toEqual(['embedding'])
  })

  it('chats without streaming, with counts and durations in nanoseconds', async () => {
    const r = await client.chat({
      model: 'primary:latest',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
      options: { num_predict: 5, temperature: 0 },
    })
    expect(r.model).toBe('primary:latest')
    expect(r.message.role).toBe('assistant')
    expect(r.done).toBe(true)
    expect(r.done_reason).toBe('length')
    expect(r.eval_count).toBe(5)
    expect(r.prompt_eval_count).toBeGreaterThan(0)
    expect(r.total_duration).toBeGreaterThan(r.eval_duration)
    expect(r.eval_duration).toBeGreaterThan(0)
    expect(Number.isNaN(Date.parse(String(r.created_at)))).toBe(false)
  })

  it('streams a chat as NDJSON parts, the last one done with the counts', async () => {
    const parts = await client.chat({
      model: 'tiny-chat',
      messages: [{ role: 'user', content: 'Count' }],
      stream: true,
      options: { num_predict: 6 },
    })
    const seen: { done: boolean; content: string; eval_count?: number; done_reason?: string }[] = []
    for await (const part of parts)
      seen.push({
        done: part.done,
        content: part.message.content,
        eval_count: part.eval_count,
        done_reason: part.done_reason,
      })
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.slice(0, -1).every((p) => !p.done)).toBe(true)
    expect(seen.at(-1)).toMatchObject({ done: true, done_reason: 'length', eval_count: 6 })
    expect(seen.map((p) => p.content).join('').length).toBeGreaterThan(0)
  })

  it('generates, streamed by default and whole on request', async () => {
    const whole = await client.generate({
      model: 'primary',
      prompt: 'Once upon a time',
      options: { num_predict: 4 },
    })
    expect(whole.done).toBe(true)
    expect(whole.eval_count).toBe(4)
    expect(whole.response?.length).toBeGreaterThan(0)
    const res = await fetch(`${api.url}/api/generate`, {
      method: 'POST',
      // no content type, as Ollama's own curl examples send it
      body: JSON.stringify({ model: 'primary', prompt: 'Hi', options: { num_predict: 3 } }),
    })
    expect(res.headers.get('content-type')).toBe('application/x-ndjson')
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { done: boolean; response: string })
    expect(lines.length).toBeGreaterThanOrEqual(2)
    expect(lines.at(-1)?.done).toBe(true)
  })

  it('embeds with vectors of the model embedding size (embed and the older embeddings)', async () => {
    const r = await client.embed({ model: 'embed:latest', input: ['a sentence', 'another one'] })
    expect(r.embeddings).toHaveLength(2)
    expect(r.embeddings[0]).toHaveLength(embed.nEmbd)
    expect(r.prompt_eval_count).toBeGreaterThan(0)
    const old = await client.embeddings({ model: 'tiny-embed', prompt: 'x' })
    expect(old.embedding).toHaveLength(embed.nEmbd)
  })

  it('answers a format schema with JSON that matches it (the engine turns it into a grammar)', async () => {
    const schema = {
      type: 'object',
      properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: 0, maximum: 9 } },
      required: ['ok', 'n'],
      additionalProperties: false,
    }
    for (const stream of [false, true] as const) {
      let text = ''
      if (stream) {
        const parts = await client.chat({
          model: 'json:latest',
          messages: [{ role: 'user', content: 'Answer' }],
          format: schema,
          stream,
          options: { num_predict: 100 },
        })
        for await (const part of parts) text += part.message.content
      } else {
        const r = await client.chat({
          model: 'json:latest',
          messages: [{ role: 'user', content: 'Answer' }],
          format: schema,
          stream,
          options: { num_predict: 100 },
        })
        text = r.message.content
      }
      const parsed = JSON.parse(text) as Record<string, unknown>
      expect(Object.keys(parsed).sort()).toEqual(['n', 'ok'])
      expect(typeof parsed.ok).toBe('boolean')
      expect(Number.isInteger(parsed.n) && (parsed.n as number) >= 0 && (parsed.n as number) <= 9).toBe(true)
    }
  })

  it("refuses an unknown model with Ollama's error shape and a 404", async () => {
    const error = await client
      .chat({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }], stream: false })
      .then(
        () => undefined,
        (e: unknown) => e as { status_code: number; error: string },
      )
    expect(error?.status_code).toBe(404)
    expect(error?.error).toMatch(/no-such-model/)
    const res = await fetch(`${api.url}/api/show`, { method: 'POST', body: '{"model":"nope"}' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: expect.stringContaining('nope'), code: 'model.not_found' })
  })

  it('answers 501 for the routes svc does not implement', async () => {
    for (const [method, path] of [
      ['POST', '/api/create'],
      ['POST', '/api/copy'],
      ['POST', '/api/push'],
      ['DELETE', '/api/delete'],
      ['HEAD', '/api/blobs/sha256:abc'],
    ] as const) {
      const res = await fetch(api.url + path, { method, body: method === 'HEAD' ? undefined : '{}' })
      expect(res.status, path).toBe(501)
      if (method !== 'HEAD')
        expect(((await res.json()) as { error: string }).error).toMatch(/not implemented/)
    }
  })

  it('serves the Ollama API, and only it, on SVC_OLLAMA_PORT', async () => {
    const url = ollamaUrl(api)
    const second = new Ollama({ host: url })
    expect((await second.list()).models.map((m) => m.name)).toContain('primary:latest')
    const r = await second.chat({
      model: 'primary',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: false,
      options: { num_predict: 2 },
    })
    expect(r.eval_count).toBe(2)
    const root = await fetch(url)
    expect(await root.text()).toBe('Ollama is running')
    const svcOwn = await fetch(`${url}/api/slots`)
    expect(svcOwn.status).toBe(404)
    expect(((await svcOwn.json()) as { error: string }).error).toMatch(/\/api\/slots/)
    expect((await second.version()).version).toMatch(/^\d+\.\d+\.\d+$/)
  })
})
