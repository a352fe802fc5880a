import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ModelEntry } from '@svc/core'
import { startComfyStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Provider, SlotContext } from '../src/contract'
import { createImageCache } from '../src/image/image-cache'
import { createImageProvider } from '../src/image/image-provider'

const WORKFLOWS = fileURLToPath(new URL('../../../workflows', import.meta.url))
const model: ModelEntry = { id: 'sdxl-turbo', format: 'checkpoint', provider: 'image', source: 'catalogue' }

let dir: string
let provider: Provider
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-image-provider-'))
  provider = createImageProvider({ cache: createImageCache({ dir }), workflowsDir: WORKFLOWS })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

function ctx(over: Partial<SlotContext> = {}): SlotContext {
  return {
    slot: 'img',
    model,
    modelPath: '/opt/ComfyUI/models/checkpoints/sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors',
    backend: 'rocm',
    runtime: 'container',
    host: '0.0.0.0',
    port: 8188,
    args: [],
    ...over,
  }
}

describe('image provider', () => {
  it('describes ComfyUI: kind, backends, endpoints, image', () => {
    expect(provider.kind).toBe('image')
    expect(provider.backends).toEqual(['rocm', 'cuda', 'vulkan', 'cpu'])
    expect(provider.endpoints).toEqual(['images'])
    expect(provider.translate?.endpoints).toEqual(['images'])
    expect(provider.requestPath('images')).toBe('/prompt')
    expect(() => provider.requestPath('chat')).toThrow()
    expect(provider.image?.('rocm')).toBe('comfyui-rocm')
    expect(provider.image?.('vulkan')).toBeUndefined() // PyTorch has no Vulkan build
  })

  it('starts ComfyUI on the slot’s host and port with the flags of its backend', () => {
    expect(provider.startCommand(ctx())).toEqual([
      'python',
      '/opt/ComfyUI/main.py',
      '--listen',
      '0.0.0.0',
      '--port',
      '8188',
      '--disable-mmap',
      '--bf16-vae',
    ])
    expect(provider.buildEnv(ctx())).toEqual({
      TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL: '1',
      TORCH_BLAS_PREFER_HIPBLASLT: '1',
    })
    expect(provider.startCommand(ctx({ backend: 'cpu', port: 9000 })).slice(4)).toEqual([
      '--port',
      '9000',
      '--disable-mmap',
      '--cpu',
    ])
    expect(provider.buildEnv(ctx({ backend: 'cuda' }))).toEqual({})
    // a flag from the slot config replaces ours
    expect(provider.startCommand(ctx({ args: ['--bf16-vae', '--lowvram'] })).slice(-3)).toEqual([
      '--disable-mmap',
      '--bf16-vae',
      '--lowvram',
    ])
  })

  it('is healthy when GET /system_stats answers, and not when nothing listens', async () => {
    const comfy = await startComfyStandIn({ checkpoints: [] })
    const base = new URL(comfy.url)
    expect(await provider.healthProbe(base, AbortSignal.timeout(2_000))).toBe(true)
    expect(comfy.requests.map((r) => r.url)).toEqual(['/system_stats'])
    await comfy.close()
    expect(await provider.healthProbe(base, AbortSignal.timeout(2_000))).toBe(false)
  })

  it('refuses models that are not checkpoints', () => {
    expect(provider.refuseModel?.(model)).toBeUndefined()
    expect(provider.refuseModel?.({ ...model, id: 'qwen', format: 'gguf' })).toMatch(/checkpoints/)
  })
})
