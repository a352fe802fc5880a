/** A ComfyUI API prompt: node id → class and inputs. */
export type ComfyGraph = Record<string, { class_type: string; inputs: Record<string, unknown> }>

/**
 * ComfyUI's default SD 1.5 API prompt (the shape of workflows/sd-1.5-pruned-emaonly.json; output
 * node "9"), small and quick by default for the stand-in: 64×64, 3 steps, seed 42.
 */
export function sd15Prompt(
  options: {
    seed?: number
    batch?: number
    size?: number
    prefix?: string
    steps?: number
    positive?: string
    negative?: string
  } = {},
): ComfyGraph {
  const size = options.size ?? 64
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'v1-5-pruned-emaonly.safetensors' } },
    '5': {
      class_type: 'EmptyLatentImage',
      inputs: { width: size, height: size, batch_size: options.batch ?? 1 },
    },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: options.positive ?? 'a fox', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: options.negative ?? '', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: {
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
        seed: options.seed ?? 42,
        steps: options.steps ?? 3,
        cfg: 7,
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1,
      },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': {
      class_type: 'SaveImage',
      inputs: { images: ['8', 0], filename_prefix: options.prefix ?? 'openai/sd15' },
    },
  }
}
