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
  /**
   * A model for constrained output: {@link TINY_TOOL_CHAT_TEMPLATE} (Hermes/Qwen-style tool calls)
   * instead of plain ChatML, so llama-server's template analysis finds tool support, `<tool_call>` and
   * `</tool_call>` as single tokens, and weights that prefer EOS first and `<tool_call>` second (one
   * embedding dimension held constant, read only by those two output rows). llama-server lets a
   * model write text before a required tool call; this one cannot (EOS is not allowed there), so
   * it opens the call at once, the grammar fills it in, and it stops right after. Unconstrained, it
   * answers nothing (EOS). Implies `stopAtEos`. Tool schemas make its prompts long: give the slot a
   * context of 2048 or so.
   */
  tools?: boolean
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
 * ChatML with Hermes-style tool calls, as Qwen2.5 ships it (shortened: no default system prompt).
 * llama-server renders it with and without tools and tool calls to learn the call syntax
 * (`<tool_call>{"name": …, "arguments": …}</tool_call>`), so `tool_choice: "required"` becomes a
 * grammar even for random weights.
 */
export const TINY_TOOL_CHAT_TEMPLATE =
  "{%- if tools %}{{- '<|im_start|>system\\n' }}" +
  "{%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] + '\\n\\n' }}{%- endif %}" +
  '{{- "# Tools\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}' +
  '{%- for tool in tools %}{{- "\\n" }}{{- tool | tojson }}{%- endfor %}' +
  '{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}' +
  "{%- elif messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}{%- endif %}" +
  '{%- for message in messages %}' +
  '{%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}' +
  "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}" +
  '{%- elif message.role == "assistant" %}{{- \'<|im_start|>\' + message.role }}' +
  "{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}" +
  '{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}' +
  '{{- \'\\n<tool_call>\\n{"name": "\' }}{{- tool_call.name }}{{- \'", "arguments": \' }}{{- tool_call.arguments | tojson }}{{- \'}\\n</tool_call>\' }}' +
  "{%- endfor %}{{- '<|im_end|>\\n' }}" +
  '{%- elif message.role == "tool" %}' +
  '{%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}{{- \'<|im_start|>user\' }}{%- endif %}' +
  "{{- '\\n<tool_response>\\n' }}{{- message.content }}{{- '\\n</tool_response>' }}" +
  '{%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}{{- \'<|im_end|>\\n\' }}{%- endif %}' +
  '{%- endif %}{%- endfor %}' +
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"

/**
 * The rerank prompt (`tokenizer.chat_template.rerank`, read by llama-server's `format_prompt_rerank`).
 * The llama arch has no classifier head, so RANK pooling scores a pair by the first component of the
 * first token's hidden state; a causal model sees only that token there, so the document goes first
 * (with BOS first, every pair would score the same).
 */
export const TINY_RERANK_TEMPLATE = '{document}\n{query}'

/**
 * Dimension 0 of every token embedding is held at a large constant, so it dominates the residual
 * stream whatever the random layers add; only the EOS and `<tool_call>` output rows read it (EOS
 * more), every other row ignores it. So EOS comes first wherever allowed, `<tool_call>` where not.
 */
function preferEosThenToolCall(
  embedding: Float32Array,
  head: Float32Array,
  nEmbd: number,
  nVocab: number,
  vocab: { eosId: number; toolCallId?: number },
): void {
  for (let t = 0; t < nVocab; t++) {
    embedding[t * nEmbd] = 20
    head[t * nEmbd] = 0
  }
  head[vocab.eosId * nEmbd] = 4
  if (vocab.toolCallId !== undefined) head[vocab.toolCallId * nEmbd] = 3
}

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

  const tools = options.tools === true
  const vocab = buildTinyVocab({ toolTokens: tools })
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

  const embedding = uniform(nEmbd * nVocab, 1)
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], type, data: embedding },
    norm('output_norm.weight'),
  ]
  // The llama arch falls back to the tied embedding when `output.weight` is absent; chat gets its own head.
  if (role === 'chat') {
    const head = matrix('output.weight', nEmbd, nVocab)
    if (tools) preferEosThenToolCall(embedding, head.data as Float32Array, nEmbd, nVocab, vocab)
    tensors.push(head)
  }
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
    [
      'tokenizer.ggml.suppress_tokens',
      gguf.i32s(vocab.suppress({ eos: !(options.stopAtEos || tools), newline: tools })),
    ],
    ['tokenizer.chat_template', gguf.str(options.tools ? TINY_TOOL_CHAT_TEMPLATE : TINY_CHAT_TEMPLATE)],
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
