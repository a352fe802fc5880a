/**
 * A model's vision projector (`--mmproj`) as the model store keeps it: where a downloaded one goes,
 * what a `--mmproj` spec names, and whether it is on disk. Pure helpers of `ModelStore`.
 */
import { stat } from 'node:fs/promises'
import { basename, dirname, join, resolve as resolvePath } from 'node:path'
import { type ModelEntry, type ProjectorFile, SvcError } from '@svc/core'
import { refuseNonModel } from './model-header'
import { fileNameFromUrl, parseModelUrl, urlOrUndefined } from './model-url'

/**
 * Where the projector at `url` is downloaded for the model stored at `modelDest`: beside it, never
 * over it (two repositories may both call their files model.gguf).
 */
export function projectorDestBeside(modelDest: string, url: string): string | undefined {
  const parsed = urlOrUndefined(url)
  if (!parsed) return undefined
  const file = fileNameFromUrl(parsed) ?? 'mmproj.gguf'
  return join(dirname(modelDest), file === basename(modelDest) ? `mmproj-${file}` : file)
}

/**
 * The projector a `--mmproj` spec (a local path or an http(s) URL) names for `entry`, or 400
 * `request.invalid` (param `mmproj`): curated models come with their own projector or none, only llm
 * models take one, a URL must name a file, a path must be a file.
 */
export async function projectorFromSpec(entry: ModelEntry, spec: string): Promise<ProjectorFile> {
  if (entry.source === 'catalogue') {
    throw new SvcError(
      'request.invalid',
      `"${entry.id}" is a curated model: ${entry.mmproj ? 'its projector comes with it' : 'it has no vision projector'}; --mmproj goes with a local model file or a URL`,
      { param: 'mmproj' },
    )
  }
  if (entry.provider !== 'llm') {
    throw new SvcError(
      'request.invalid',
      `a vision projector goes with an llm (GGUF) model, not "${entry.id}"`,
      {
        param: 'mmproj',
      },
    )
  }
  if (/^https?:\/\//i.test(spec)) {
    const url = parseModelUrl(spec)
    if (!fileNameFromUrl(url))
      throw new SvcError('request.invalid', `the projector URL ${spec} names no file`, { param: 'mmproj' })
    return { url: url.href }
  }
  const path = resolvePath(spec)
  const size = await fileSize(path)
  if (size === undefined)
    throw new SvcError('request.invalid', `no projector file at ${path}`, { param: 'mmproj' })
  await refuseNonModel(path, 'gguf', `the projector ${path}`, 'mmproj') // a projector is a GGUF too
  return { path, size }
}

/** The projector with `path` and `size` set from the first of `candidates` on disk (else without a path). */
export async function projectorOnDisk(
  mmproj: ProjectorFile,
  candidates: readonly (string | undefined)[],
): Promise<ProjectorFile> {
  const { path: _was, ...rest } = mmproj
  for (const candidate of candidates) {
    const size = await fileSize(candidate)
    if (size !== undefined && candidate) return { ...rest, path: candidate, size }
  }
  return rest
}

/** The size of a regular file, or undefined when there is none at `path`. */
export async function fileSize(path: string | undefined): Promise<number | undefined> {
  const info = path ? await stat(path).catch(() => undefined) : undefined
  return info?.isFile() ? info.size : undefined
}
