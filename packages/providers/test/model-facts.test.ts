import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelEntry } from '@svc/core'
import { writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatTemplate, modelFacts } from '../src/models/model-facts'

const local = (id: string, path: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({
  id,
  format: 'gguf',
  provider: 'llm',
  source: 'local',
  path,
  ...extra,
})

describe('the facts of a model, from its entry, its slot and its GGUF header', () => {
  let dir: string
  let chat: string
  let embed: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-facts-'))
    chat = (await writeTinyGguf(join(dir, 'chat.gguf'), { role: 'chat', nLayer: 3, contextLength: 1024 }))
      .path
    embed = (await writeTinyGguf(join(dir, 'embed.gguf'), { role: 'embed', nEmbd: 96, nHead: 4 })).path
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it("reads the architecture, training context and layers from the file's header", async () => {
    const facts = await modelFacts(local('chat', chat))
    expect(facts).toMatchObject({
      capabilities: ['chat'],
      architecture: 'llama',
      contextLength: 1024,
      blockCount: 3,
      quantization: expect.stringMatching(/^(F16|F32)$/),
    })
    expect(facts.header?.['general.architecture']).toBe('llama')
    expect(facts.header?.['llama.context_length']).toBe(1024)
    // The vocabulary is never read, and the template is not part of model_info.
    expect(facts.header).not.toHaveProperty('tokenizer.ggml.tokens')
    expect(facts.header).not.toHaveProperty('tokenizer.chat_template')
    expect(await chatTemplate(local('chat', chat))).toContain('im_start')
  })

  it('says tools only for a chat template that takes them', async () => {
    expect((await modelFacts(local('chat', chat))).tools).toBe(false)
    const withTools = await writeTinyGguf(join(dir, 'tools.gguf'), { role: 'chat', tools: true })
    expect(await modelFacts(local('tools', withTools.path))).toMatchObject({ tools: true, thinking: false })
  })

  it('says embeddings for a file with a pooling type and no role, and never chat or tools', async () => {
    const facts = await modelFacts(local('embed', embed))
    expect(facts.capabilities).toEqual(['embeddings'])
    expect(facts.tools).toBe(false)
    expect(facts.embeddingLength).toBe(96)
  })

  it("takes the slot's kind for an empty slot or a file without a role of its own", async () => {
    expect((await modelFacts(undefined, { provider: 'tts' })).capabilities).toEqual(['speech'])
    expect((await modelFacts(undefined, { provider: 'stt' })).capabilities).toEqual(['transcriptions'])
    expect((await modelFacts(undefined, { provider: 'llm', role: 'embed' })).capabilities).toEqual([
      'embeddings',
    ])
    expect((await modelFacts(local('chat', chat), { provider: 'llm', role: 'rerank' })).capabilities).toEqual(
      ['rerank'],
    )
  })

  it('gives the entry alone when the file is gone or is no GGUF, and reads a changed file again', async () => {
    const bogus = join(dir, 'bogus.gguf')
    await writeFile(bogus, 'not a model')
    expect(await modelFacts(local('bogus', bogus))).toMatchObject({
      capabilities: ['chat'],
      architecture: null,
      header: null,
    })
    expect((await modelFacts(local('gone', join(dir, 'gone.gguf')))).contextLength).toBeNull()
    const again = join(dir, 'again.gguf')
    await writeTinyGguf(again, { contextLength: 256 })
    expect((await modelFacts(local('again', again))).contextLength).toBe(256)
    await writeTinyGguf(again, { contextLength: 2048 })
    await utimes(again, new Date(), new Date(Date.now() + 5000))
    expect((await modelFacts(local('again', again))).contextLength).toBe(2048)
  })
})
