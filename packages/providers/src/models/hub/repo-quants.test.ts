import { describe, expect, it } from 'vitest'
import { isNoMatch, pickHubFiles } from './pick-files'
import { groupQuants } from './repo-quants'
import { quantNeed } from './search'

const lfs = (path: string, size: number) => ({ path, size: 135, lfs: { size } })

describe('groupQuants', () => {
  it('lists one row per quant with its Hub name, smallest first, and picks Q4_K_M by default', () => {
    const r = groupQuants('unsloth/Qwen3-8B-GGUF', [
      { path: 'README.md', size: 900 },
      lfs('Qwen3-8B-Q8_0.gguf', 8_000),
      lfs('Qwen3-8B-Q4_K_M.gguf', 4_000),
      lfs('Qwen3-8B-q2_k.gguf', 2_000),
    ])
    expect(r.quants.map((q) => [q.quant, q.name, q.size])).toEqual([
      ['Q2_K', 'hf.co/unsloth/Qwen3-8B-GGUF:Q2_K', 2_000],
      ['Q4_K_M', 'hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M', 4_000],
      ['Q8_0', 'hf.co/unsloth/Qwen3-8B-GGUF:Q8_0', 8_000],
    ])
    expect(r.defaultQuant).toBe('Q4_K_M')
    expect(r.mmproj).toEqual([])
  })

  it('sums the shards of a split GGUF into one quant, in shard order', () => {
    const r = groupQuants('o/big', [
      lfs('Q8_0/big-Q8_0-00002-of-00002.gguf', 700),
      lfs('Q8_0/big-Q8_0-00001-of-00002.gguf', 1_000),
      lfs('big-Q4_0.gguf', 900),
    ])
    const q8 = r.quants.find((q) => q.quant === 'Q8_0')!
    expect(q8).toMatchObject({
      split: true,
      size: 1_700,
      files: ['Q8_0/big-Q8_0-00001-of-00002.gguf', 'Q8_0/big-Q8_0-00002-of-00002.gguf'],
    })
    expect(r.quants.find((q) => q.quant === 'Q4_0')?.split).toBe(false)
    // No Q4_K_M: Q8_0 is the next choice.
    expect(r.defaultQuant).toBe('Q8_0')
  })

  it('keeps mmproj and imatrix files out of the quants; the projector is listed apart', () => {
    const r = groupQuants('o/vision', [
      lfs('vision-Q4_K_M.gguf', 4_000),
      lfs('mmproj-vision-f16.gguf', 600),
      lfs('mmproj-vision-Q8_0.gguf', 300),
      lfs('imatrix.gguf', 50),
    ])
    expect(r.quants.map((q) => q.quant)).toEqual(['Q4_K_M'])
    expect(r.mmproj).toEqual([
      { path: 'mmproj-vision-Q8_0.gguf', size: 300 },
      { path: 'mmproj-vision-f16.gguf', size: 600 },
    ])
  })

  it('names a file without a quant label by its file name, and a repo without GGUFs has no default', () => {
    expect(groupQuants('o/r', [lfs('tiny.gguf', 10)]).quants[0]).toMatchObject({
      quant: 'tiny',
      name: 'hf.co/o/r:tiny',
    })
    expect(groupQuants('o/r', [{ path: 'model.safetensors', size: 5 }])).toEqual({
      quants: [],
      mmproj: [],
      defaultQuant: null,
    })
  })
})

describe('groupQuants and name resolution', () => {
  it('lists names that resolve to exactly the files listed for them', () => {
    const files = [
      lfs('Q8_0/m-Q8_0-00001-of-00002.gguf', 10),
      lfs('Q8_0/m-Q8_0-00002-of-00002.gguf', 10),
      lfs('m-Q4_K_M.gguf', 5),
      lfs('m-q4_k_s.gguf', 4),
      lfs('m-IQ4_XS.gguf', 4),
      lfs('m-UD-Q4_K_XL.gguf', 6),
      lfs('other/m-Q4_K_M.gguf', 5),
      lfs('m-BF16.gguf', 20),
      lfs('tiny.gguf', 1),
      lfs('mmproj-m-f16.gguf', 2),
    ]
    const { quants } = groupQuants('o/m', files)
    expect(quants).toHaveLength(8)
    for (const q of quants) {
      const picked = pickHubFiles(files, q.quant)
      expect(isNoMatch(picked) ? picked : picked.model.map((f) => f.path), q.name).toEqual(q.files)
    }
  })
})

describe('quantNeed', () => {
  const header = {
    file: 'x.gguf',
    architecture: 'llama',
    layers: 2,
    contextLength: 1024,
    facts: {
      architecture: 'llama',
      blockCount: 2,
      contextLength: 1024,
      embeddingLength: 64,
      headCount: 4,
      headCountKv: 2,
      keyLength: null,
      valueLength: null,
    },
  }

  it('adds the KV cache for the slot context (else the training context) and the projector', () => {
    // 2 layers × 2 KV heads × (16 + 16) × 2 bytes = 256 bytes per token.
    const own = quantNeed({ size: 1_000 }, { header, mmproj: [] })
    expect(own.bytes).toBe(1_000 + 256 * 1024)
    expect(own.detail).toMatch(/ctx 1024/)
    const slot = quantNeed(
      { size: 1_000 },
      { header, mmproj: [{ path: 'm.gguf', size: 50 }] },
      { ctxSize: 10 },
    )
    expect(slot.bytes).toBe(1_000 + 2_560 + 50)
    expect(slot.detail).toMatch(/projector/)
  })

  it('counts only the weights when the header is unknown', () => {
    expect(quantNeed({ size: 1_000 }, { header: null, mmproj: [] })).toEqual({
      bytes: 1_000,
      detail: 'weights 1000 B',
    })
  })
})
