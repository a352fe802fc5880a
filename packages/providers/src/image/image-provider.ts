/**
 * The image provider: upstream ComfyUI (docs/providers.md, "image"), serving `/v1/images/generations`
 * through its translator (ComfyUI speaks no OpenAI API).
 *
 * Backends: `rocm` (the Strix Halo image `comfyui-rocm` in manifests/images.toml, with `--bf16-vae`,
 * which avoids VAE out-of-memory on gfx1151), `cuda`, and `cpu` (`--cpu`). `vulkan` is listed because
 * the picker's image preference names it, but ComfyUI runs on PyTorch, which has no Vulkan build: no
 * image is mapped to it, so the picker never honours it. Only `rocm` has a pinned image today.
 *
 * argv (container runtime): `python /opt/ComfyUI/main.py --listen <host> --port <port>
 * --disable-mmap [--bf16-vae | --cpu] <slot args>`; `--disable-mmap` is critical on gfx1151 and
 * harmless elsewhere. A flag the slot config gives itself replaces ours. Health: `GET /system_stats`.
 */
import type { ModelEntry } from '@svc/core'
import { upstreamArgv } from '../argv'
import { type Backend, httpOk, type Provider, type SlotContext } from '../contract'
import { createImageTranslator, type ImageTranslatorOptions } from './image-translator'

export interface ImageProviderOptions extends ImageTranslatorOptions {
  /** How long ComfyUI may take to answer its health probe (imports torch, scans nodes). Default 5 min. */
  warmupTimeoutMs?: number
}

/** The `manifests/images.toml` entry per backend. */
const IMAGES: Partial<Record<Backend, string>> = { rocm: 'comfyui-rocm' }

/** ComfyUI's command-line arguments for a slot. */
export function comfyuiArgs(ctx: SlotContext): string[] {
  const argv = upstreamArgv(ctx.args)
    .fixed('--listen', ctx.host, '--port', String(ctx.port))
    .default('--disable-mmap')
  if (ctx.backend === 'rocm') argv.default('--bf16-vae')
  if (ctx.backend === 'cpu') argv.default('--cpu')
  return argv.build()
}

export function createImageProvider(options: ImageProviderOptions): Provider {
  return {
    kind: 'image',
    backends: ['rocm', 'cuda', 'vulkan', 'cpu'],
    endpoints: ['images'],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 300_000,
    // Set by the image's login profile only, so they must be passed in (docs/providers.md, "image").
    buildEnv: (ctx): Record<string, string> =>
      ctx.backend === 'rocm'
        ? { TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL: '1', TORCH_BLAS_PREFER_HIPBLASLT: '1' }
        : {},
    startCommand: (ctx) => ['python', '/opt/ComfyUI/main.py', ...comfyuiArgs(ctx)],
    healthProbe: (base, signal) => httpOk(base, '/system_stats', signal),
    requestPath(endpoint) {
      if (endpoint !== 'images') throw new Error(`ComfyUI does not serve ${endpoint}`)
      return '/prompt'
    },
    translate: createImageTranslator(options),
    refuseModel: (model: ModelEntry) =>
      model.format === 'checkpoint' || model.format === 'safetensors'
        ? undefined
        : `ComfyUI loads checkpoints; "${model.id}" is a ${model.format} model`,
    image: (backend) => IMAGES[backend],
  }
}
