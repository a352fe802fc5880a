import { writeFile } from 'node:fs/promises'
import { rng } from '../rng'
import { encodeGguf, type GgufTensor, type GgufTensorType, type GgufValue, gguf } from './gguf-encoder'
import { buildTinyVocab } from './tiny-vocab'

/** What the tiny model is for; it decides the pooling type and templates written into the metadata. */
export const TINY_GGUF_ROLES = ['chat', 'embed', 'rerank'] as const
export type TinyGgufRole = (typeof TINY_GGUF_ROLES)[number]

export interface TinyGgufOptions {
  /** Default `chat`. */
  role?: TinyGgufRole
  /** Seeds the weights; the same options always give the same bytes. Default 1. */
  seed?: number
  /** Hidden size (= embedding length). Must be divisible by `nHead`. Default 64. */
  nEmbd?: number
  /** Default 2. */
  nLayer?: number
  /** Default 4. */
  nHead?: number
  /** Grouped-query heads; must divide `nHead`. Default `nHead`. */
  nHeadKv?: number
  /** Feed-forward size. Default 128. */
  nFf?: number
  /** `llama.context_length` (the training context). Default 512. */
  contextLength?: number
  /** Storage type of the weight matrices; norms are always f32. Default `f32`. */
  tensorType?: GgufTensorType
  /**
   * When false (the default) EOS is suppressed, so every generation runs to `max_tokens` and finishes with
   * `finish_reason: "length"`: predictable for tests. When true the random weights may stop early.
   */
  stopAtEos?: boolean
  /** `general.name`. Default `svc-tiny-<role>`. */
  name?: string
}

/** What was written, for assertions (`nEmbd` is the embedding vector length). */
export interface TinyGguf {
  path: string
  role: TinyGgufRole
  bytes: number
  nEmbd: number
  nVocab: number
  nLayer: number
  nHead: number
  nFf: number
  contextLength: number
  bosId: number
  eosId: number
}

/** ChatML, as Qwen-style models ship it; llama.cpp renders it with `--jinja`. */
export const TINY_CHAT_TEMPLATE =
  "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}{%- endfor -%}" +
  "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"

/**
 * The rerank prompt (`tokenizer.chat_template.rerank`, read by llama-server's `format_prompt_rerank`).
 * The llama arch has no classifier head, so RANK pooling scores a pair by the first component of the
 * first token's hidden state; a causal model sees only that token there, so the document goes first
 * (with BOS first, every pair would score the same).
 */
export const TINY_RERANK_TEMPLATE = '{document}\n{query}'

/** llama.cpp `enum llama_pooling_type`. */
const POOLING = { mean: 1, rank: 4 } as const

/**
 * Builds the GGUF bytes of a random-weight llama model (pure; see {@link writeTinyGguf}). Throws on
 * inconsistent dims.
 */
export function buildTinyGguf(options: TinyGgufOptions = {}): {
  bytes: Buffer
  info: Omit<TinyGguf, 'path'>
} {
  const role = options.role ?? 'chat'
  const nEmbd = options.nEmbd ?? 64
  const nLayer = options.nLayer ?? 2
  const nHead = options.nHead ?? 4
  const nHeadKv = options.nHeadKv ?? nHead
  const nFf = options.nFf ?? 128
  const contextLength = options.contextLength ?? 512
  const type = options.tensorType ?? 'f32'
  if (nEmbd % nHead !== 0) throw new Error(`nEmbd ${nEmbd} is not divisible by nHead ${nHead}`)
  if (nHead % nHeadKv !== 0) throw new Error(`nHead ${nHead} is not divisible by nHeadKv ${nHeadKv}`)
  const headDim = nEmbd / nHead
  const nEmbdKv = headDim * nHeadKv

  const vocab = buildTinyVocab()
  const nVocab = vocab.tokens.length
  const random = rng(options.seed ?? 1)
  const uniform = (n: number, scale: number) => {
    const a = new Float32Array(n)
    for (let i = 0; i < n; i++) a[i] = (random() * 2 - 1) * scale
    return a
  }
  // Weights scaled like a fresh init (±1/sqrt(fan_in)); RMS norms keep the activations bounded anyway.
  const matrix = (name: string, inDim: number, outDim: number): GgufTensor => ({
    name,
    dims: [inDim, outDim],
    type,
    data: uniform(inDim * outDim, 1 / Math.sqrt(inDim)),
  })
  const norm = (name: string): GgufTensor => ({
    name,
    dims: [nEmbd],
    type: 'f32',
    data: new Float32Array(nEmbd).fill(1),
  })

  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], type, data: uniform(nEmbd * nVocab, 1) },
    norm('output_norm.weight'),
  ]
  // The llama arch falls back to the tied embedding when `output.weight` is absent; chat gets its own head.
  if (role === 'chat') tensors.push(matrix('output.weight', nEmbd, nVocab))
  for (let i = 0; i < nLayer; i++) {
    tensors.push(
      norm(`blk.${i}.attn_norm.weight`),
      matrix(`blk.${i}.attn_q.weight`, nEmbd, nEmbd),
      matrix(`blk.${i}.attn_k.weight`, nEmbd, nEmbdKv),
      matrix(`blk.${i}.attn_v.weight`, nEmbd, nEmbdKv),
      matrix(`blk.${i}.attn_output.weight`, nEmbd, nEmbd),
      norm(`blk.${i}.ffn_norm.weight`),
      matrix(`blk.${i}.ffn_gate.weight`, nEmbd, nFf),
      matrix(`blk.${i}.ffn_down.weight`, nFf, nEmbd),
      matrix(`blk.${i}.ffn_up.weight`, nEmbd, nFf),
    )
  }

  const kv = new Map<string, GgufValue>([
    ['general.architecture', gguf.str('llama')],
    ['general.name', gguf.str(options.name ?? `svc-tiny-${role}`)],
    ['general.file_type', gguf.u32(type === 'f32' ? 0 : 1)],
    ['llama.vocab_size', gguf.u32(nVocab)],
    ['llama.context_length', gguf.u32(contextLength)],
    ['llama.embedding_length', gguf.u32(nEmbd)],
    ['llama.block_count', gguf.u32(nLayer)],
    ['llama.feed_forward_length', gguf.u32(nFf)],
    ['llama.attention.head_count', gguf.u32(nHead)],
    ['llama.attention.head_count_kv', gguf.u32(nHeadKv)],
    ['llama.attention.layer_norm_rms_epsilon', gguf.f32(1e-5)],
    ['llama.rope.dimension_count', gguf.u32(headDim)],
    ['llama.rope.freq_base', gguf.f32(10000)],
    ['tokenizer.ggml.model', gguf.str('gpt2')],
    ['tokenizer.ggml.pre', gguf.str('default')],
    ['tokenizer.ggml.tokens', gguf.strings(vocab.tokens)],
    ['tokenizer.ggml.token_type', gguf.i32s(vocab.tokenTypes)],
    ['tokenizer.ggml.merges', gguf.strings(vocab.merges)],
    ['tokenizer.ggml.bos_token_id', gguf.u32(vocab.bosId)],
    ['tokenizer.ggml.eos_token_id', gguf.u32(vocab.eosId)],
    ['tokenizer.ggml.padding_token_id', gguf.u32(vocab.bosId)],
    ['tokenizer.ggml.add_bos_token', gguf.bool(true)],
    ['tokenizer.ggml.add_eos_token', gguf.bool(false)],
    ['tokenizer.ggml.suppress_tokens', gguf.i32s(vocab.suppress({ eos: !options.stopAtEos }))],
    ['tokenizer.chat_template', gguf.str(TINY_CHAT_TEMPLATE)],
  ])
  if (role === 'embed') kv.set('llama.pooling_type', gguf.u32(POOLING.mean))
  if (role === 'rerank') {
    kv.set('llama.pooling_type', gguf.u32(POOLING.rank))
    kv.set('tokenizer.chat_template.rerank', gguf.str(TINY_RERANK_TEMPLATE))
  }

  const bytes = encodeGguf(kv, tensors)
  return {
    bytes,
    info: {
      role,
      bytes: bytes.length,
      nEmbd,
      nVocab,
      nLayer,
      nHead,
      nFf,
      contextLength,
      bosId: vocab.bosId,
      eosId: vocab.eosId,
    },
  }
}

/**
 * Writes a tiny random-weight llama GGUF (a few hundred KB) that the real `llama-server` loads: chat
 * and completions with `--jinja`, embeddings with `--embeddings --pooling mean` (vectors of `nEmbd`),
 * rerank with `--reranking`. Overwrites `path`; deterministic for the same options.
 */
export async function writeTinyGguf(path: string, options: TinyGgufOptions = {}): Promise<TinyGguf> {
  const { bytes, info } = buildTinyGguf(options)
  await writeFile(path, bytes)
  return { path, ...info }
}
