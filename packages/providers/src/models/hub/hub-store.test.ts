import type { ModelEntry } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { hubAlias } from './hub-store'

const pulled = (repo: string, quant: string, file: string): ModelEntry => ({
  id: `hf.co/${repo}:${quant}`,
  format: 'gguf',
  provider: 'llm',
  source: 'pulled',
  hub: { repo, revision: 'a'.repeat(40), file, quant },
})

describe('hubAlias (the dispatcher’s view of Hub names)', () => {
  const registered = [
    pulled('Org/Model-GGUF', 'Q8_0', 'Model-Q8_0.gguf'),
    pulled('Org/Model-GGUF', 'Q4_K_M', 'sub/Model-Q4_K_M.gguf'),
  ]

  it('maps any spelling of a pulled name to its canonical name', () => {
    expect(hubAlias(registered, 'hf:org/model-gguf:q8_0')).toBe('hf.co/Org/Model-GGUF:Q8_0')
    expect(hubAlias(registered, 'huggingface.co/Org/Model-GGUF:sub/Model-Q4_K_M.gguf')).toBe(
      'hf.co/Org/Model-GGUF:Q4_K_M',
    )
    // No quant: the default rule over what is pulled.
    expect(hubAlias(registered, 'hf.co/Org/Model-GGUF')).toBe('hf.co/Org/Model-GGUF:Q4_K_M')
  })

  it('upper-cases the quant of a name not pulled yet, and leaves everything else alone', () => {
    expect(hubAlias(registered, 'hf:Other/Repo-GGUF:iq4_xs')).toBe('hf.co/Other/Repo-GGUF:IQ4_XS')
    expect(hubAlias(registered, 'hf.co/Other/Repo-GGUF')).toBeUndefined()
    expect(hubAlias(registered, 'hf.co/Other/Repo-GGUF:x.gguf')).toBeUndefined()
    for (const other of [
      'primary',
      'qwen3-0.6b-q8_0',
      'hermes-3',
      'hf.co/bad',
      'https://hf.co/a/b/resolve/main/x.gguf',
    ])
      expect(hubAlias(registered, other), other).toBeUndefined()
  })
})
