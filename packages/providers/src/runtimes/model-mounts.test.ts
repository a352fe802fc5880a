import { describe, expect, it } from 'vitest'
import { modelMounts } from './model-mounts'

describe('the mounts of a model in a container or swarm task', () => {
  it('mounts the model directory read-only and names the file inside it', () => {
    expect(modelMounts({ id: 'm', path: '/state/models/m/m.gguf' })).toEqual({
      mounts: [{ host: '/state/models/m', container: '/models', readOnly: true }],
      modelPath: '/models/m.gguf',
    })
  })

  it('finds a projector beside its model in the same mount', () => {
    const mounted = modelMounts({
      id: 'v',
      path: '/state/models/v/v.gguf',
      mmproj: { path: '/state/models/v/mmproj-v.gguf' },
    })
    expect(mounted.mounts).toHaveLength(1)
    expect(mounted.mmprojPath).toBe('/models/mmproj-v.gguf')
  })

  it('mounts a projector elsewhere on its own', () => {
    const mounted = modelMounts({ id: 'v', path: '/a/v.gguf', mmproj: { path: '/b/p.gguf' } })
    expect(mounted.mounts).toEqual([
      { host: '/a', container: '/models', readOnly: true },
      { host: '/b', container: '/mmproj', readOnly: true },
    ])
    expect(mounted).toMatchObject({ modelPath: '/models/v.gguf', mmprojPath: '/mmproj/p.gguf' })
  })

  it('passes a model without a file by its id, and a projector not on disk not at all', () => {
    expect(modelMounts({ id: 'tag:1b', mmproj: { url: 'https://x/p.gguf' } })).toEqual({
      mounts: [],
      modelPath: 'tag:1b',
    })
  })
})
