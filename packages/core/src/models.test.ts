import { describe, expect, it } from 'vitest'
import { modelCapabilities } from './models'

describe('modelCapabilities', () => {
  it('derives what a model accepts from its provider and role', () => {
    expect(modelCapabilities({ provider: 'llm' })).toEqual(['chat'])
    expect(modelCapabilities({ provider: 'llm', role: 'embed' })).toEqual(['embeddings'])
    expect(modelCapabilities({ provider: 'llm', role: 'rerank' })).toEqual(['rerank'])
    expect(modelCapabilities({ provider: 'stt' })).toEqual(['transcriptions'])
    expect(modelCapabilities({ provider: 'tts' })).toEqual(['speech'])
    expect(modelCapabilities({ provider: 'image' })).toEqual(['images'])
    expect(modelCapabilities({ provider: 'npu' })).toEqual([])
    expect(modelCapabilities({ provider: 'somebody-else' })).toEqual([])
  })

  it('adds vision for a chat model with a projector, and never for embeddings', () => {
    expect(modelCapabilities({ provider: 'llm', role: 'chat', mmproj: { url: 'https://x/p.gguf' } })).toEqual(
      ['chat', 'vision'],
    )
    expect(modelCapabilities({ provider: 'llm', role: 'embed', mmproj: { path: '/p.gguf' } })).toEqual([
      'embeddings',
    ])
  })

  it('adds the catalogue’s extras in a stable order', () => {
    expect(modelCapabilities({ provider: 'tts', extraCapabilities: ['voice_cloning'] })).toEqual([
      'speech',
      'voice_cloning',
    ])
    expect(modelCapabilities({ provider: 'npu', extraCapabilities: ['transcriptions'] })).toEqual([
      'transcriptions',
    ])
  })
})
