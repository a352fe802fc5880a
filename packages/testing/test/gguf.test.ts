import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildTinyGguf,
  postJson,
  requireLlamaServer,
  startLlamaServer,
  toHalf,
  writeTinyGguf,
} from '../src/index'

const llamaServer = requireLlamaServer()

describe('buildTinyGguf', () => {
  it('writes a GGUF v3 file of a few hundred KB with aligned tensor data', () => {
    const { bytes, info } = buildTinyGguf({ role: 'chat' })
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('GGUF')
    expect(bytes.readUInt32LE(4)).toBe(3)
    // token_embd, output_norm, output + 9 tensors per layer
    expect(Number(bytes.readBigUInt64LE(8))).toBe(3 + 9 * info.nLayer)
    expect(bytes.length % 32).toBe(0)
    expect(bytes.length).toBe(info.bytes)
    expect(bytes.length).toBeGreaterThan(100_000)
    expect(bytes.length).toBeLessThan(1_000_000)
    expect(bytes.includes(Buffer.from('tokenizer.chat_template'))).toBe(true)
  })

  it('is deterministic for a seed and differs across seeds', () => {
    const a = buildTinyGguf({ seed: 7 }).bytes
    expect(buildTinyGguf({ seed: 7 }).bytes.equals(a)).toBe(true)
    expect(buildTinyGguf({ seed: 8 }).bytes.equals(a)).toBe(false)
  })

  it('halves the weight bytes with f16 storage', () => {
    const f32 = buildTinyGguf({ tensorType: 'f32' }).bytes.length
    const f16 = buildTinyGguf({ tensorType: 'f16' }).bytes.length
    expect(f16).toBeLessThan(f32 * 0.6)
  })

  it('rounds floats to binary16 like IEEE 754', () => {
    expect(toHalf(1)).toBe(0x3c00)
    expect(toHalf(-2)).toBe(0xc000)
    expect(toHalf(0.5)).toBe(0x3800)
    expect(toHalf(65504)).toBe(0x7bff)
    expect(toHalf(1e6)).toBe(0x7c00)
    expect(toHalf(2 ** -24)).toBe(0x0001)
    expect(toHalf(0)).toBe(0)
  })

  it('rejects a hidden size that does not split into heads', () => {
    expect(() => buildTinyGguf({ nEmbd: 65, nHead: 4 })).toThrow(/divisible/)
  })
})

describe.skipIf(!llamaServer)('a tiny GGUF served by the real llama-server', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-gguf-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('answers chat, streamed chat, completions, models and metrics', async () => {
    const model = await writeTinyGguf(join(dir, 'chat.gguf'), { role: 'chat' })
    await using server = await startLlamaServer({ model: model.path, role: 'chat' })

    const models = (await (await fetch(`${server.url}/v1/models`)).json()) as {
      data: { id: string; meta: { n_embd: number; n_vocab: number } }[]
    }
    expect(models.data[0]).toMatchObject({ id: 'tiny', meta: { n_embd: 64, n_vocab: model.nVocab } })

    const chat = await postJson(`${server.url}/v1/chat/completions`, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'Hello there' }],
      max_tokens: 8,
    })
    expect(chat.status).toBe(200)
    const chatBody = (await chat.json()) as Record<string, unknown>
    expect(chatBody).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant' } }],
      usage: { completion_tokens: 8 },
    })
    const content = (chatBody.choices as { message: { content: string } }[])[0]!.message.content
    expect(content).toMatch(/^[\x20-\x7e]+$/)

    const streamed = await postJson(`${server.url}/v1/chat/completions`, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 5,
      stream: true,
    })
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = (await streamed.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice('data: '.length))
    expect(events.at(-1)).toBe('[DONE]')
    const chunks = events
      .slice(0, -1)
      .map((e) => JSON.parse(e) as { object: string; choices: { finish_reason: string | null }[] })
    expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true)
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('length')

    const completion = await postJson(`${server.url}/v1/completions`, {
      model: 'tiny',
      prompt: 'The cat',
      max_tokens: 4,
    })
    expect(await completion.json()).toMatchObject({
      object: 'text_completion',
      choices: [{ finish_reason: 'length' }],
    })

    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(/^llamacpp:prompt_tokens_total \d+/m)
  })

  it('answers embeddings of nEmbd floats with mean pooling', async () => {
    const model = await writeTinyGguf(join(dir, 'embed.gguf'), { role: 'embed', nEmbd: 32, nHead: 2 })
    await using server = await startLlamaServer({ model: model.path, role: 'embed' })
    const res = await postJson(`${server.url}/v1/embeddings`, {
      model: 'tiny',
      input: ['hello world', 'goodbye'],
    })
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: { index: number; embedding: number[] }[] }
    expect(data.map((d) => d.index)).toEqual([0, 1])
    for (const d of data) {
      expect(d.embedding).toHaveLength(model.nEmbd)
      // llama-server L2-normalises pooled vectors
      expect(Math.hypot(...d.embedding)).toBeCloseTo(1, 3)
    }
    expect(data[0]!.embedding).not.toEqual(data[1]!.embedding)
  })

  it('reranks three documents, sorted by relevance score', async () => {
    const model = await writeTinyGguf(join(dir, 'rerank.gguf'), { role: 'rerank' })
    await using server = await startLlamaServer({ model: model.path, role: 'rerank' })
    const res = await postJson(`${server.url}/v1/rerank`, {
      model: 'tiny',
      query: 'which one is a fruit?',
      documents: ['apple', 'bicycle', 'granite'],
    })
    expect(res.status).toBe(200)
    const { results } = (await res.json()) as { results: { index: number; relevance_score: number }[] }
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2])
    const scores = results.map((r) => r.relevance_score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    // documents with different first tokens score differently (see TINY_RERANK_TEMPLATE)
    expect(new Set(scores).size).toBe(3)
  })

  it('stops the server it started, and only that one', async () => {
    const model = await writeTinyGguf(join(dir, 'stop.gguf'), { role: 'chat', seed: 3 })
    const a = await startLlamaServer({ model: model.path })
    const b = await startLlamaServer({ model: model.path })
    try {
      await a.stop()
      expect(a.child.exitCode !== null || a.child.signalCode !== null).toBe(true)
      await expect(fetch(`${a.url}/health`)).rejects.toThrow()
      expect((await fetch(`${b.url}/health`)).status).toBe(200)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
