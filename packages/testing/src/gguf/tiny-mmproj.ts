/**
 * A tiny random-weight multimodal projector (an "mmproj" GGUF) that the real `llama-server --mmproj`
 * loads next to the tiny llama model, so a chat with an image part runs end to end on a plain CPU.
 *
 * It is LLaVA's `mlp` projector (`tools/mtmd/clip.cpp` in llama.cpp), chosen because it needs the
 * fewest keys and tensors of all projector types: with `clip.vision.block_count = 0` the vision
 * tower is only the patch embedding (a strided conv) plus position embeddings, and the projector is
 * two linear layers with a GELU between them — six tensors in all. The image is resized to
 * `imageSize`², cut into `(imageSize / patchSize)²` patches, and each patch becomes one embedding of
 * the text model's width: clip's `mm.2.weight` output width must equal the LLM's `n_embd`, or
 * llama-server refuses the pair ("mismatch between text model … and mmproj").
 */
import { writeFile } from 'node:fs/promises'
import { rng } from '../rng'
import { encodeGguf, type GgufTensor, type GgufValue, gguf } from './gguf-encoder'

export interface TinyMmprojOptions {
  /** The text model's hidden size (`llama.embedding_length`); the projector's output width. Default 64. */
  nEmbdText?: number
  /** The vision tower's width. Default 32. */
  nEmbdVision?: number
  /** Hidden width of the two-layer MLP projector. Default 64. */
  nHidden?: number
  /** Square input size images are resized to. Must be a multiple of `patchSize`. Default 32. */
  imageSize?: number
  /** Default 8: a 32×32 image gives 16 image tokens. */
  patchSize?: number
  /** Seeds the weights; the same options always give the same bytes. Default 1. */
  seed?: number
}

/** What was written, for assertions. */
export interface TinyMmproj {
  path: string
  bytes: number
  nEmbdText: number
  nEmbdVision: number
  imageSize: number
  patchSize: number
  /** Embeddings (= positions in the text context) one image takes. */
  imageTokens: number
}

/** Builds the mmproj GGUF bytes (pure; see {@link writeTinyMmproj}). Throws on inconsistent dims. */
export function buildTinyMmproj(options: TinyMmprojOptions = {}): {
  bytes: Buffer
  info: Omit<TinyMmproj, 'path'>
} {
  const nEmbdText = options.nEmbdText ?? 64
  const nEmbdVision = options.nEmbdVision ?? 32
  const nHidden = options.nHidden ?? 64
  const imageSize = options.imageSize ?? 32
  const patchSize = options.patchSize ?? 8
  if (imageSize % patchSize !== 0)
    throw new Error(`imageSize ${imageSize} is not a multiple of patchSize ${patchSize}`)
  const imageTokens = (imageSize / patchSize) ** 2

  const random = rng(options.seed ?? 1)
  const uniform = (n: number, scale: number) => {
    const a = new Float32Array(n)
    for (let i = 0; i < n; i++) a[i] = (random() * 2 - 1) * scale
    return a
  }
  const tensor = (name: string, dims: number[], scale: number): GgufTensor => ({
    name,
    dims,
    type: 'f32',
    data: uniform(
      dims.reduce((a, b) => a * b, 1),
      scale,
    ),
  })
  const fanIn = patchSize * patchSize * 3
  const tensors: GgufTensor[] = [
    // ggml conv kernel layout: [kernel w, kernel h, input channels, output channels]
    tensor('v.patch_embd.weight', [patchSize, patchSize, 3, nEmbdVision], 1 / Math.sqrt(fanIn)),
    tensor('v.position_embd.weight', [nEmbdVision, imageTokens], 0.1),
    tensor('mm.0.weight', [nEmbdVision, nHidden], 1 / Math.sqrt(nEmbdVision)),
    tensor('mm.0.bias', [nHidden], 0.01),
    tensor('mm.2.weight', [nHidden, nEmbdText], 1 / Math.sqrt(nHidden)),
    tensor('mm.2.bias', [nEmbdText], 0.01),
  ]

  const kv = new Map<string, GgufValue>([
    ['general.architecture', gguf.str('clip')],
    ['general.name', gguf.str('svc-tiny-mmproj')],
    ['general.file_type', gguf.u32(0)],
    ['clip.projector_type', gguf.str('mlp')],
    ['clip.has_vision_encoder', gguf.bool(true)],
    ['clip.vision.embedding_length', gguf.u32(nEmbdVision)],
    ['clip.vision.feed_forward_length', gguf.u32(nEmbdVision * 2)],
    ['clip.vision.block_count', gguf.u32(0)],
    ['clip.vision.attention.head_count', gguf.u32(4)],
    ['clip.vision.attention.layer_norm_epsilon', gguf.f32(1e-5)],
    ['clip.vision.projection_dim', gguf.u32(nEmbdText)],
    ['clip.vision.image_size', gguf.u32(imageSize)],
    ['clip.vision.patch_size', gguf.u32(patchSize)],
    // CLIP's normalisation constants, as LLaVA's mmproj files carry them.
    ['clip.vision.image_mean', gguf.f32s([0.48145466, 0.4578275, 0.40821073])],
    ['clip.vision.image_std', gguf.f32s([0.26862954, 0.26130258, 0.27577711])],
  ])

  const bytes = encodeGguf(kv, tensors)
  return { bytes, info: { bytes: bytes.length, nEmbdText, nEmbdVision, imageSize, patchSize, imageTokens } }
}

/**
 * Writes the tiny projector (a few tens of KB). Pair it with a tiny llama model of the same
 * `nEmbd` (`writeTinyGguf`'s default is 64, like this one's `nEmbdText`). Overwrites `path`.
 */
export async function writeTinyMmproj(path: string, options: TinyMmprojOptions = {}): Promise<TinyMmproj> {
  const { bytes, info } = buildTinyMmproj(options)
  await writeFile(path, bytes)
  return { path, ...info }
}
