import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTinyGguf, writeTinyMmproj } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contextSize, estimateLoad, kvCacheBytes } from '../src/memory/estimate'
import { readGgufFacts } from '../src/memory/gguf-metadata'

describe('the memory estimate of a load', () => {
  let dir: string
  let gguf: { path: string; bytes: number }
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-estimate-'))
    gguf = await writeTinyGguf(join(dir, 'tiny.gguf'), {
      nEmbd: 64,
      nHead: 4,
      nHeadKv: 2,
      nLayer: 3,
      contextLength: 1024,
    })
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('reads the GGUF metadata the KV cache depends on, past the whole vocabulary', async () => {
    expect(await readGgufFacts(gguf.path)).toEqual({
      architecture: 'llama',
      blockCount: 3,
      contextLength: 1024,
      embeddingLength: 64,
      headCount: 4,
      headCountKv: 2,
      keyLength: null,
      valueLength: null,
    })
  })

  it('refuses a file that is not GGUF with a clear message', async () => {
    const fake = join(dir, 'fake.gguf')
    await writeFile(fake, 'not a model at all')
    await expect(readGgufFacts(fake)).rejects.toThrow(/is not a GGUF file/)
  })

  it('is weights plus an f16 KV cache for the slot context', async () => {
    // 3 layers x 2 KV heads x (16 + 16) head dims x 2 bytes = 384 bytes per token
    const est = await estimateLoad({
      model: { id: 'tiny', format: 'gguf', provider: 'llm', source: 'local', path: gguf.path },
      ctxSize: 4096,
    })
    expect(est.bytes).toBe(gguf.bytes + 4096 * 384)
    expect(est.detail).toMatch(/^weights [\d.]+ KiB \+ KV cache 1\.5 MiB \(ctx 4096\)$/)
  })

  it("adds a vision model's projector: its file on disk, else the catalogue figure", async () => {
    const projector = await writeTinyMmproj(join(dir, 'mmproj.gguf'))
    const model = { id: 'tiny', format: 'gguf', provider: 'llm', source: 'local' as const, path: gguf.path }
    const plain = await estimateLoad({ model, ctxSize: 4096 })
    const seeing = await estimateLoad({
      model: { ...model, mmproj: { path: projector.path } },
      ctxSize: 4096,
    })
    expect(seeing.bytes).toBe(plain.bytes + projector.bytes)
    expect(seeing.detail).toMatch(/^weights .+ \+ KV cache .+ \+ projector [\d.]+ [KM]iB$/)
    const pending = { id: 'v', format: 'gguf', provider: 'llm', source: 'catalogue' as const, size: 1000 }
    expect(await estimateLoad({ model: { ...pending, mmproj: { size: 500 } } })).toEqual({
      bytes: 1500,
      detail: '1000 B download (not on disk yet) + projector 500 B',
    })
  })

  it('takes the context from -c in args first, then ctx_size, then the model', () => {
    expect(contextSize({ ctxSize: 2048, args: ['-c', '512'] }, { contextLength: 1024 })).toBe(512)
    expect(contextSize({ ctxSize: 2048, args: ['--threads', '1'] }, { contextLength: 1024 })).toBe(2048)
    expect(contextSize({}, { contextLength: 1024 })).toBe(1024)
  })

  it('counts per-layer KV heads (layers without attention hold none)', () => {
    const facts = {
      architecture: 'x',
      blockCount: 3,
      contextLength: 8,
      embeddingLength: 64,
      headCount: 4,
      headCountKv: [2, 0, 4],
      keyLength: 32,
      valueLength: 16,
    }
    expect(kvCacheBytes(facts, 10)).toBe(10 * (2 + 0 + 4) * (32 + 16) * 2)
  })

  it('uses the file size of a checkpoint and the catalogue figure as a floor', async () => {
    const ckpt = join(dir, 'model.safetensors')
    await writeFile(ckpt, Buffer.alloc(3000))
    const base = {
      id: 'img',
      format: 'checkpoint',
      provider: 'image',
      source: 'catalogue' as const,
      path: ckpt,
    }
    expect(await estimateLoad({ model: base })).toEqual({ bytes: 3000, detail: 'checkpoint 2.9 KiB' })
    expect(await estimateLoad({ model: { ...base, minVramGb: 8 } })).toEqual({
      bytes: 8 * 1024 ** 3,
      detail: 'catalogue: at least 8 GiB',
    })
  })

  it('falls back to the catalogue size before a pull, and says when nothing is known', async () => {
    const entry = { id: 'x', format: 'gguf', provider: 'llm', source: 'catalogue' as const }
    expect(await estimateLoad({ model: { ...entry, size: 5 * 1024 ** 2 } })).toEqual({
      bytes: 5 * 1024 ** 2,
      detail: '5.0 MiB download (not on disk yet)',
    })
    expect(await estimateLoad({ model: entry })).toEqual({ bytes: 0, detail: 'size unknown' })
  })
})
