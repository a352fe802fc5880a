/**
 * FastFlowLM's model list as recorded from its `src/model_list.json` (ROCm/FastFlowLM
 * @8b8399c1). The stand-in serves these tags; whisper and embed tags are the ASR / embedding models.
 */
export const FLM_STANDIN_TAGS = [
  'llama3.2:1b',
  'llama3.2:3b',
  'llama3.1:8b',
  'deepseek-r1:8b',
  'qwen3:0.6b',
  'qwen3:1.7b',
  'qwen3:4b',
  'qwen3:8b',
  'qwen3.5:0.8b',
  'gemma3:1b',
  'gemma3:4b',
  'phi4-mini-it:4b',
  'lfm2:1.2b',
  'gpt-oss:20b',
  'whisper-v3:turbo',
  'embed-gemma:300m',
] as const

export const FLM_ASR_TAG = 'whisper-v3:turbo'
export const FLM_EMBED_TAG = 'embed-gemma:300m'
/** Dimensions of embeddinggemma-300m vectors. */
export const FLM_EMBED_DIMS = 768

export type FlmTagKind = 'llm' | 'asr' | 'embed'

export function flmTagKind(tag: string): FlmTagKind {
  if (tag.startsWith('whisper')) return 'asr'
  if (tag.startsWith('embed')) return 'embed'
  return 'llm'
}

/**
 * `rectify_model_tag`: a tag without a size resolves to the first size in the list
 * (`qwen3` → `qwen3:0.6b`). Undefined for unknown tags.
 */
export function rectifyTag(tag: string, tags: readonly string[] = FLM_STANDIN_TAGS): string | undefined {
  if (tags.includes(tag)) return tag
  if (tag.includes(':')) return undefined
  return tags.find((t) => t.startsWith(`${tag}:`))
}
