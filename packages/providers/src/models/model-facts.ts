/**
 * What a model or a slot can do, computed once (issue 38, point 3) and read by every listing:
 * `/v1/models`, `/v1/models/{id}`, `/api/models`, and the Ollama `/api/tags`, `/api/show`, `/api/ps`.
 *
 * The inputs are the model entry (provider, role, projector, the catalogue's extras), the slot's kind
 * when the model sits in a slot (a file loaded by path has no role of its own: the slot's role says
 * what it does), and the GGUF header of the file on disk: architecture, training context, the chat
 * template (does it take tools, can it think), `pooling_type` (an embedding or rerank model),
 * quantisation and size label. The header is read once per file (keyed by path, size and mtime) with
 * `readGgufMetadata`, skipping the vocabulary.
 */
import { stat } from 'node:fs/promises'
import { GGMLFileQuantizationType } from '@huggingface/gguf'
import { type Capability, type LlmRole, type ModelEntry, modelCapabilities, remember } from '@svc/core'
import { readGgufMetadata } from '../memory/gguf-metadata'

/** A header value as `/api/show` gives it: scalars whole, arrays empty (Ollama's non-verbose form). */
export type HeaderValue = string | number | boolean | never[]

export interface ModelFacts {
  /** svc's words (`chat`, `vision`, `embeddings`, …; see `CAPABILITIES`). */
  capabilities: Capability[]
  /** A chat model whose chat template takes `tools` (so tool calls can be asked for). */
  tools: boolean
  /** A chat model whose chat template switches reasoning (`enable_thinking`, `<think>`, `reasoning_content`). */
  thinking: boolean
  /** `general.architecture` (`llama`, `qwen3`, …); null without a GGUF header. */
  architecture: string | null
  /** `<arch>.context_length`: the context the model was trained with (tokens); null when unknown. */
  contextLength: number | null
  /** `<arch>.block_count`, `<arch>.embedding_length`; null when unknown. */
  blockCount: number | null
  embeddingLength: number | null
  /** `general.size_label` (`8B`), else null. */
  parameterSize: string | null
  /** The file's quantisation by `general.file_type` (`Q4_K_M`, `F16`), else null. */
  quantization: string | null
  /** The header's keys (the vocabulary and merges left out, other arrays as `[]`); null without one. */
  header: Readonly<Record<string, HeaderValue>> | null
}

/** What a slot says about the model in it: its provider and, for llm/npu slots, its role. */
export interface SlotKind {
  provider: string
  role?: LlmRole | undefined
}

/** llama.cpp's `pooling_type` values that make a model an embedding (1–3) or a reranking (4) model. */
const POOLING_ROLE: Partial<Record<number, LlmRole>> = { 1: 'embed', 2: 'embed', 3: 'embed', 4: 'rerank' }

/** Vocabulary-sized arrays: skipped unread (a 150k-token vocabulary costs time and memory). */
const SKIPPED = /^tokenizer\.ggml\.(tokens|token_type|scores|merges)$/

interface Header {
  kv: Map<string, unknown>
}

const headers = new Map<string, Promise<Header | null>>()

/**
 * The facts of `entry` (or, without one, of an empty slot of `slot`'s kind). Never throws: a file that
 * cannot be read (gone, not a GGUF) gives the facts its entry alone implies.
 */
export async function modelFacts(entry: ModelEntry | undefined, slot?: SlotKind): Promise<ModelFacts> {
  const header = entry?.path && entry.format === 'gguf' ? await readHeader(entry.path) : null
  const kv = header?.kv
  const arch =
    typeof kv?.get('general.architecture') === 'string' ? (kv.get('general.architecture') as string) : null
  const num = (key: string): number | null => {
    const v = kv?.get(`${arch}.${key}`)
    return typeof v === 'number' ? v : null
  }
  const pooling = num('pooling_type')
  const headerRole = pooling === null ? undefined : POOLING_ROLE[pooling]
  const base = entry ?? { provider: slot?.provider ?? 'llm' }
  // The entry's own role first, then the slot's (a file loaded by path), then what the header says.
  const role = entry?.role ?? slot?.role ?? headerRole
  const capabilities = modelCapabilities({
    provider: base.provider,
    ...(role ? { role } : {}),
    ...(entry?.mmproj ? { mmproj: entry.mmproj } : {}),
    ...(entry?.extraCapabilities ? { extraCapabilities: entry.extraCapabilities } : {}),
  })
  const template =
    typeof kv?.get('tokenizer.chat_template') === 'string'
      ? (kv.get('tokenizer.chat_template') as string)
      : ''
  const chats = capabilities.includes('chat')
  const fileType = kv?.get('general.file_type')
  const sizeLabel = kv?.get('general.size_label')
  return {
    capabilities,
    tools: chats && /\btools\b/.test(template),
    thinking: chats && /enable_thinking|<think>|reasoning_content/.test(template),
    architecture: arch,
    contextLength: num('context_length'),
    blockCount: num('block_count'),
    embeddingLength: num('embedding_length'),
    parameterSize: typeof sizeLabel === 'string' && sizeLabel ? sizeLabel : null,
    quantization: typeof fileType === 'number' ? (GGMLFileQuantizationType[fileType] ?? null) : null,
    header: kv ? headerView(kv) : null,
  }
}

/** The header's key/values as `/api/show`'s `model_info` gives them (the chat template is `template`). */
function headerView(kv: Map<string, unknown>): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {}
  for (const [key, value] of [...kv].sort(([a], [b]) => a.localeCompare(b))) {
    if (key === 'tokenizer.chat_template') continue
    if (Array.isArray(value)) out[key] = []
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      out[key] = value
  }
  return out
}

/** The chat template of a file (for `/api/show`'s `template`), or ''. */
export async function chatTemplate(entry: ModelEntry | undefined): Promise<string> {
  const header = entry?.path && entry.format === 'gguf' ? await readHeader(entry.path) : null
  const t = header?.kv.get('tokenizer.chat_template')
  return typeof t === 'string' ? t : ''
}

/** The header of `path`, read once per version of the file (size and mtime); null when unreadable. */
async function readHeader(path: string): Promise<Header | null> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return null
  const key = `${path}\0${info.size}\0${info.mtimeMs}`
  const known = headers.get(key)
  if (known) return known
  const reading = readGgufMetadata(path, (k) => !SKIPPED.test(k)).then(
    (kv) => ({ kv }),
    () => null,
  )
  // Bounded: a long-running server sees new files (pulls, reloads) and forgets old versions.
  return remember(headers, key, reading, 256)
}
