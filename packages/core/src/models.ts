/**
 * Model entries: what a registry ref, a curated id or a local file resolves to. The registry that
 * holds them lives in @svc/providers (`ModelStore`); this is the shape every package agrees on.
 */
import type { LlmRole } from './slot-config'

/** `remote`: a model a remote upstream serves under that name; svc has no file of it. */
export const MODEL_SOURCES = ['catalogue', 'pulled', 'local', 'remote'] as const
export type ModelSource = (typeof MODEL_SOURCES)[number]

export interface ModelEntry {
  /** Registry ref (or curated id): the string a client sends as `model`. */
  id: string
  /** File format / family of weights: `gguf`, `checkpoint` (ComfyUI), `npu` (FastFlowLM tag), `whisper`, … */
  format: string
  /** Which provider kind serves it (`llm`, `image`, `stt`, `tts`, `npu`). */
  provider: string
  source: ModelSource
  /** For llm models: what the weights are for. */
  role?: LlmRole
  /** Where to download it from (curated and pulled entries). */
  url?: string
  sha256?: string
  /** Size on disk in bytes, when known. */
  size?: number
  /** Absolute path of the file on disk once present. */
  path?: string
  /** Catalogue facts shown by `svc models ls` and the dashboard. */
  family?: string
  minVramGb?: number
  license?: string
  licenseUrl?: string
  badge?: string
  description?: string
  /** Image models: the workflow template in `workflows/`; without one the model is not offered. */
  workflow?: string
  /**
   * llm models: the multimodal projector (llama.cpp's `mmproj` GGUF) that lets the model see images.
   * Present only for models that have one; `path` is set once the file is on disk.
   */
  mmproj?: ProjectorFile
  /** Capabilities beyond what provider and role imply (the catalogue's `capabilities`). */
  extraCapabilities?: Capability[]
  /** A model pulled from the Hugging Face Hub by name (`id` is then `hf.co/<owner>/<repo>:<QUANT>`). */
  hub?: HubSource
  /**
   * The further shards of a split GGUF (`…-00002-of-00003.gguf` on), pulled beside the first (`url`,
   * `path`), in order: llama-server loads the first and finds the others next to it.
   */
  parts?: ModelPart[]
  /**
   * What a preset (`<config>/presets.toml`) sets for this load's engine; absent without one. Part of
   * the load key: the same file with other engine settings is another load.
   */
  engine?: EngineSettings
}

/**
 * A preset's engine settings for one load. When the preset changes the engine, the entry's `id` is
 * the preset's name and `ref` the registry ref of the file it runs (what the model store knows).
 */
export interface EngineSettings {
  ref: string
  /** Engine arguments after the slot's own `args` (a flag given twice: the later wins). */
  args: readonly string[]
  /** Context size over the slot's `ctx_size`. */
  ctxSize?: number
}

/** Where a Hub model came from: what its name resolved to when it was pulled. */
export interface HubSource {
  /** `owner/repo` as the Hub spells it. */
  repo: string
  /** The commit the files were resolved at (downloads are pinned to it). */
  revision: string
  /** The model's (first) GGUF file, its path in the repo. */
  file: string
  /** The quant label the name carries (`Q4_K_M`), or the file's stem when it has none. */
  quant: string
}

/** One further file of a model (a shard of a split GGUF): where from, what it must hash to, where it is. */
export interface ModelPart {
  url: string
  sha256?: string
  size?: number
  /** Absolute path once on disk. */
  path?: string
}

/** A model's second file: the vision projector llama-server loads with `--mmproj`. */
export interface ProjectorFile {
  url?: string
  sha256?: string
  size?: number
  /** Absolute path once on disk. */
  path?: string
}

/**
 * What a client may send a model (`capabilities` in `/v1/models` and `/api/models`). `vision`: chat
 * requests may carry `image_url` parts; `voice_cloning`: speech may use voices uploaded to svc.
 */
export const CAPABILITIES = [
  'chat',
  'vision',
  'embeddings',
  'rerank',
  'transcriptions',
  'speech',
  'voice_cloning',
  'images',
] as const
export type Capability = (typeof CAPABILITIES)[number]

const ROLE_CAPABILITY = { chat: 'chat', embed: 'embeddings', rerank: 'rerank' } as const
const PROVIDER_CAPABILITY: Record<string, Capability> = {
  stt: 'transcriptions',
  tts: 'speech',
  image: 'images',
}

/**
 * The capabilities of a model: from its provider and role (an llm model without a role chats), `vision` when it has a projector, plus the catalogue's extras. Pure; a third-party
 * provider's model has only its extras.
 */
export function modelCapabilities(
  model: Pick<ModelEntry, 'provider' | 'role' | 'mmproj' | 'extraCapabilities'>,
): Capability[] {
  const out = new Set<Capability>()
  if (model.provider === 'llm') out.add(ROLE_CAPABILITY[model.role ?? 'chat'])
  // NPU entries name their role (chat, embed); its speech models say `transcriptions` as an extra.
  if (model.provider === 'npu' && model.role) out.add(ROLE_CAPABILITY[model.role])
  const byProvider = PROVIDER_CAPABILITY[model.provider]
  if (byProvider) out.add(byProvider)
  if (model.mmproj && out.has('chat')) out.add('vision')
  for (const c of model.extraCapabilities ?? []) out.add(c)
  return CAPABILITIES.filter((c) => out.has(c))
}

/** Progress of a pull, published as `slot.progress` events. */
export interface PullProgress {
  done: number
  /** Null when the server did not say how big the file is. */
  total: number | null
}
