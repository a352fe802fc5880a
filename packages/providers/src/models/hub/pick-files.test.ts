import { describe, expect, it } from 'vitest'
import { isNoMatch, type PickedFiles, pickHubFiles, quantOf } from './pick-files'

const f = (path: string, size = 100) => ({ path, size, sha256: `${path.length}`.padStart(64, '0') })
const picked = (files: ReturnType<typeof f>[], tag?: string): PickedFiles => {
  const out = pickHubFiles(files, tag)
  if (isNoMatch(out)) throw new Error(`no match; quants: ${out.quants.join(', ')}`)
  return out
}
const paths = (p: PickedFiles) => p.model.map((m) => m.path)

describe('pickHubFiles (llama.cpp rules)', () => {
  const repo = [
    f('README.md'),
    f('Qwen3-8B-Q8_0.gguf'),
    f('Qwen3-8B-Q4_K_M.gguf'),
    f('Qwen3-8B-q4_0.gguf'),
    f('Qwen3-8B-IQ4_XS.gguf'),
    f('imatrix_unsloth.gguf'),
  ]

  it('defaults to Q4_K_M, then Q8_0, then the first GGUF', () => {
    expect(picked(repo)).toMatchObject({ quant: 'Q4_K_M' })
    expect(paths(picked(repo))).toEqual(['Qwen3-8B-Q4_K_M.gguf'])
    const noQ4 = repo.filter((x) => !x.path.includes('Q4_K_M'))
    expect(paths(picked(noQ4))).toEqual(['Qwen3-8B-Q8_0.gguf'])
    const neither = noQ4.filter((x) => !x.path.includes('Q8_0'))
    expect(paths(picked(neither))).toEqual(['Qwen3-8B-IQ4_XS.gguf'])
  })

  it('matches the quant case-insensitively, as <quant>[.-] on the path', () => {
    expect(picked(repo, 'q8_0')).toMatchObject({ quant: 'Q8_0' })
    expect(paths(picked(repo, 'Q4_0'))).toEqual(['Qwen3-8B-q4_0.gguf'])
    // `Q4_K` is not `Q4_K_M`: the quant must end at a '.' or '-'.
    expect(pickHubFiles(repo, 'Q4_K')).toEqual({ quants: ['IQ4_XS', 'Q4_0', 'Q4_K_M', 'Q8_0'] })
  })

  it('takes a full file name as the quant', () => {
    expect(paths(picked(repo, 'qwen3-8b-iq4_xs.gguf'))).toEqual(['Qwen3-8B-IQ4_XS.gguf'])
  })

  it('never picks an imatrix or mmproj file, and lists the quants there are when none matches', () => {
    const out = pickHubFiles([f('mmproj-F16.gguf'), f('imatrix.gguf'), f('m-Q6_K.gguf')], 'F16')
    expect(out).toEqual({ quants: ['Q6_K'] })
    expect(pickHubFiles([f('mmproj-F16.gguf'), f('README.md')])).toEqual({ quants: [] })
  })

  it('pulls every shard of a split, picked by its first, with the split label', () => {
    const split = [
      f('BF16/M-BF16-00002-of-00003.gguf'),
      f('BF16/M-BF16-00001-of-00003.gguf'),
      f('BF16/M-BF16-00003-of-00003.gguf'),
      f('M-Q8_0.gguf'),
    ]
    const out = picked(split, 'bf16')
    expect(out.quant).toBe('BF16')
    expect(paths(out)).toEqual([
      'BF16/M-BF16-00001-of-00003.gguf',
      'BF16/M-BF16-00002-of-00003.gguf',
      'BF16/M-BF16-00003-of-00003.gguf',
    ])
    expect(pickHubFiles(split.slice(1), 'BF16')).toMatchObject({
      incomplete: 'BF16/M-BF16-00001-of-00003.gguf',
    })
  })

  it('brings the projector of the nearest folder and quant bits', () => {
    const vision = [
      f('V-Q4_K_M.gguf'),
      f('V-F16.gguf'),
      f('mmproj-V-F16.gguf'),
      f('mmproj-V-Q8_0.gguf'),
      f('other/mmproj-F32.gguf'),
    ]
    expect(picked(vision).mmproj?.path).toBe('mmproj-V-Q8_0.gguf')
    expect(picked(vision, 'F16').mmproj?.path).toBe('mmproj-V-F16.gguf')
    const nested = [
      f('a/V-Q4_K_M.gguf'),
      f('mmproj-root-F16.gguf'),
      f('a/mmproj-a-F16.gguf'),
      f('b/mmproj-b-Q4_K_M.gguf'),
    ]
    expect(picked(nested).mmproj?.path).toBe('a/mmproj-a-F16.gguf')
    expect(picked([f('T-Q4_K_M.gguf')]).mmproj).toBeUndefined()
  })

  it('labels files by their quant, else their stem', () => {
    expect(quantOf('x/Qwen3-8B-UD-Q4_K_XL.gguf')).toBe('UD-Q4_K_XL')
    expect(quantOf('M-BF16-00001-of-00003.gguf')).toBe('BF16')
    expect(quantOf('model.gguf')).toBe('model')
  })
})
