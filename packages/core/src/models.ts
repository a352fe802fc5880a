/**
 * Model entries: what a registry ref, a curated id or a local file resolves to. The registry that
 * holds them lives in apps/providers; this is the shape every package agrees on.
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
}

/** Progress of a pull, published as `slot.progress` events. */
export interface PullProgress {
  done: number
  /** Null when the server did not say how big the file is. */
  total: number | null
}
