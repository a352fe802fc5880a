/**
 * The NPU's own model namespace: FastFlowLM tags (PROVIDERS.md §3, `src/model_list.json`), not GGUF
 * files. FLM downloads a tag's weights itself on first use, so these entries have no URL. Registry
 * ids cannot hold ":", so each tag gets an id: `flm-` + the tag with ":" → "-"
 * (`qwen3:4b` → `flm-qwen3-4b`, `whisper-v3:turbo` → `flm-whisper-v3-turbo`).
 */
import type { ModelEntry } from '@svc/core'

export type FlmModelKind = 'llm' | 'asr' | 'embed'

export interface FlmModel {
  tag: string
  kind: FlmModelKind
}

const LLM_TAGS = [
  'llama3.2:1b',
  'llama3.2:3b',
  'llama3.1:8b',
  'deepseek-r1:8b',
  'deepseek-r1-0528:8b',
  'qwen3:0.6b',
  'qwen3:1.7b',
  'qwen3:4b',
  'qwen3:8b',
  'qwen3-tk:4b',
  'qwen3-it:4b',
  'qwen3vl-it:4b',
  'qwen3.5:0.8b',
  'qwen3.5:2b',
  'qwen3.5:4b',
  'qwen3.5:9b',
  'qwen3.6-moe:35b-a3b',
  'qwen2.5-it:3b',
  'qwen2.5vl-it:3b',
  'gemma3:1b',
  'gemma3:4b',
  'gemma4-it:e2b',
  'gemma4-it:e4b',
  'medgemma:4b',
  'medgemma1.5:4b',
  'translategemma:4b',
  'phi4-mini-it:4b',
  'lfm2:1.2b',
  'lfm2:2.6b',
  'lfm2-trans:2.6b',
  'lfm2.5-it:1.2b',
  'lfm2.5-tk:1.2b',
  'nanbeige4.1:3b',
  'gpt-oss:20b',
  'gpt-oss-sg:20b',
] as const

export const FLM_ASR_TAG = 'whisper-v3:turbo'
export const FLM_EMBED_TAG = 'embed-gemma:300m'

export const FLM_MODELS: readonly FlmModel[] = [
  ...LLM_TAGS.map((tag) => ({ tag, kind: 'llm' as const })),
  { tag: FLM_ASR_TAG, kind: 'asr' },
  { tag: FLM_EMBED_TAG, kind: 'embed' },
]

/** `qwen3:4b` → `flm-qwen3-4b`. */
export function flmModelId(tag: string): string {
  return `flm-${tag.replace(/:/g, '-')}`
}

const BY_ID = new Map(FLM_MODELS.map((m) => [flmModelId(m.tag), m]))

/** The FLM model behind a registry id, or undefined when the id is not an FLM model. */
export function flmModel(id: string): FlmModel | undefined {
  return BY_ID.get(id)
}

/** The catalogue entries of the NPU provider (format `npu`, provider `npu`). */
export function npuModelEntries(): ModelEntry[] {
  return FLM_MODELS.map(({ tag, kind }) => ({
    id: flmModelId(tag),
    format: 'npu',
    provider: 'npu',
    source: 'catalogue',
    family: tag.split(':')[0] ?? tag,
    ...(kind === 'llm' ? { role: 'chat' as const } : kind === 'embed' ? { role: 'embed' as const } : {}),
    ...(kind === 'asr' ? { extraCapabilities: ['transcriptions' as const] } : {}),
    description:
      kind === 'asr'
        ? `FastFlowLM ${tag}: speech recognition on the NPU`
        : kind === 'embed'
          ? `FastFlowLM ${tag}: embeddings on the NPU`
          : `FastFlowLM ${tag} on the NPU`,
  }))
}
