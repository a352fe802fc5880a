/**
 * Model files by name: what a file's name says (its registry ref, `Qwen3-0.6B-Q8_0.gguf` →
 * `qwen3-0.6b-q8_0`, and by its extension its format and provider), and where a downloaded model
 * goes under `<state>`. Pure.
 */
import { basename, dirname, extname, join, sep } from 'node:path'
import { type HubSource, type ModelEntry, SvcError } from '@svc/core'
import { volumeHostDir } from '../runtimes/volumes'
import { fileNameFromUrl, urlOrUndefined } from './model-url'

const FORMAT_BY_EXT: Record<string, { format: string; provider: string }> = {
  '.gguf': { format: 'gguf', provider: 'llm' },
  '.safetensors': { format: 'checkpoint', provider: 'image' },
  '.ckpt': { format: 'checkpoint', provider: 'image' },
  // whisper.cpp's ggml models (ggml-base.en.bin): the stt slot's whisper-server loads them.
  '.bin': { format: 'whisper', provider: 'stt' },
}

/** Format and provider by the file's extension; anything else is taken as a GGUF for llm. */
export function fileKind(name: string): { format: string; provider: string } {
  return FORMAT_BY_EXT[extname(name).toLowerCase()] ?? { format: 'gguf', provider: 'llm' }
}

/** A registry ref from a file name: `Qwen3-0.6B-Q8_0.gguf` → `qwen3-0.6b-q8_0` (at most 128 characters). */
export function refFromFileName(name: string): string {
  const stem = basename(name, extname(name))
  return (
    stem
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 128) || 'model'
  )
}

/**
 * Where a downloaded model lives: `<state>/models/<id>/<file>`; checkpoints in the folder the ComfyUI
 * image mounts as its models (`<state>/volumes/comfyui/models/checkpoints/<id>/`).
 * `<file>` comes from the URL made safe (`fileNameFromUrl`), so it never leaves that directory.
 */
export function modelDest(stateDir: string, entry: ModelEntry): string {
  const url = entry.url ? urlOrUndefined(entry.url) : undefined
  const file = (url && fileNameFromUrl(url)) ?? `${entry.id}.${entry.format}`
  const dir =
    entry.provider === 'image'
      ? join(volumeHostDir(stateDir, 'comfyui/models'), 'checkpoints', entry.id)
      : entry.hub
        ? hubModelDir(stateDir, entry.hub)
        : join(stateDir, 'models', entry.id)
  const path = join(dir, file)
  // The names above are sanitised; this is the invariant they exist for, checked where it matters.
  if (!path.startsWith(dir + sep) || !dir.startsWith(join(stateDir) + sep)) {
    throw new SvcError('request.invalid', `model "${entry.id}" cannot be stored under its name`, {
      param: 'model',
    })
  }
  return path
}

/**
 * A Hub model's folder: `<state>/models/hf/<owner>/<repo>/<quant>/` (lower case, each part made safe),
 * one per quant, so deleting one quant never takes a file another still needs.
 */
function hubModelDir(stateDir: string, hub: HubSource): string {
  const safe = (part: string | undefined) =>
    (part ?? '')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '_')
      .replace(/^\.+/, '_')
  const [owner, repo] = hub.repo.split('/')
  return join(stateDir, 'models', 'hf', safe(owner), safe(repo), safe(hub.quant))
}

/** Where a further file of a model (a shard, `url`) goes: beside the model's file at `modelPath`. */
export function partDest(modelPath: string, url: string): string | undefined {
  const parsed = urlOrUndefined(url)
  const file = parsed && fileNameFromUrl(parsed)
  return file && file !== basename(modelPath) ? join(dirname(modelPath), file) : undefined
}
