/**
 * Where a model's files are, and which of them are on disk: the weights (`path`), the further shards
 * of a split GGUF (`parts`, beside the first) and the projector (`mmproj`), and the plan for pulling
 * what is missing. Helpers of `ModelStore`, which knows the state dir.
 */
import { rm, rmdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { type ModelEntry, type ModelPart, type ProjectorFile, SvcError } from '@svc/core'
import { sha256OfFile } from './download'
import { modelDest, partDest } from './model-files'
import { fileSize, projectorDestBeside, projectorOnDisk } from './model-projector'
import { type PullFile, pullFile } from './pull-files'

/** `modelDest`, or undefined for an entry (say, from an edited registry file) that has no safe place. */
export function destOrUndefined(stateDir: string, entry: ModelEntry): string | undefined {
  try {
    return modelDest(stateDir, entry)
  } catch {
    return undefined
  }
}

/** Where a model's projector is downloaded to: beside the model. */
export function projectorDest(stateDir: string, entry: ModelEntry): string | undefined {
  const model = destOrUndefined(stateDir, entry)
  return entry.mmproj?.url && model ? projectorDestBeside(model, entry.mmproj.url) : undefined
}

/** Where each further shard goes (undefined for one with no safe place). */
export function partDests(stateDir: string, entry: ModelEntry): (string | undefined)[] {
  const model = destOrUndefined(stateDir, entry)
  return (entry.parts ?? []).map((p) => (model ? partDest(model, p.url) : undefined))
}

/**
 * The entry with `path` (and `size`, on disk) set where its file is: a local file where it is, a
 * pulled one where the pull puts it. A split's `size` is all its shards on disk; each part and the
 * projector get their own `path` when present.
 */
export async function withPath(stateDir: string, entry: ModelEntry): Promise<ModelEntry> {
  const mmproj = entry.mmproj ? await projectorWithPath(stateDir, entry, entry.mmproj) : undefined
  const parts = entry.parts ? await partsWithPath(stateDir, entry) : undefined
  const candidates =
    entry.source === 'local' && entry.path ? [entry.path] : [entry.path, destOrUndefined(stateDir, entry)]
  const { path: _gone, mmproj: _projector, parts: _parts, ...rest } = entry
  const out: ModelEntry = { ...rest, ...(mmproj ? { mmproj } : {}), ...(parts ? { parts } : {}) }
  const more = (parts ?? []).reduce((sum, p) => sum + (p.path ? (p.size ?? 0) : 0), 0)
  for (const path of candidates) {
    const size = await fileSize(path)
    if (size !== undefined) return { ...out, path: path!, size: size + more }
  }
  return out
}

/** Whether every file of the model is complete on disk (partial downloads are `.part` files). */
export function allOnDisk(found: ModelEntry): boolean {
  return (
    found.path !== undefined &&
    (!found.mmproj || found.mmproj.path !== undefined) &&
    (found.parts ?? []).every((p) => p.path !== undefined)
  )
}

/**
 * What a pull must fetch for `found` (an entry from `withPath`) and how many bytes of the model are
 * complete already. `originHeaders(url)` gives the headers for a file's own origin (the Hub's token).
 * Throws 404 `model.not_found` for a missing file that has no URL.
 */
export function pullPlan(
  stateDir: string,
  entry: ModelEntry,
  found: ModelEntry,
  originHeaders: (url: string) => Record<string, string> | undefined,
): { files: PullFile[]; onDisk: number } {
  const files: PullFile[] = []
  let onDisk = 0
  const add = (url: string, dest: string, facts: { sha256?: string; size?: number }) => {
    const headers = originHeaders(url)
    files.push({ ...pullFile(url, dest, facts), ...(headers ? { originHeaders: headers } : {}) })
  }
  const partsSize = (entry.parts ?? []).reduce((sum, p) => sum + (p.size ?? 0), 0)
  if (!found.path) {
    if (!entry.url)
      throw new SvcError(
        'model.not_found',
        `model "${entry.id}" has no file on disk and no URL to pull it from`,
      )
    const size = entry.size !== undefined ? entry.size - partsSize : undefined
    add(entry.url, modelDest(stateDir, entry), {
      ...(entry.sha256 ? { sha256: entry.sha256 } : {}),
      ...(size !== undefined ? { size } : {}),
    })
  } else {
    onDisk += (found.size ?? 0) - (found.parts ?? []).reduce((s, p) => s + (p.path ? (p.size ?? 0) : 0), 0)
  }
  const dests = partDests(stateDir, entry)
  for (const [i, part] of (found.parts ?? []).entries()) {
    const dest = dests[i]
    if (part.path) onDisk += part.size ?? 0
    else if (dest) add(part.url, dest, part)
    else
      throw new SvcError('model.not_found', `shard ${i + 2} of "${entry.id}" cannot be stored under its name`)
  }
  const projector = projectorDest(stateDir, entry)
  if (found.mmproj?.path) onDisk += found.mmproj.size ?? 0
  else if (found.mmproj) {
    if (!found.mmproj.url || !projector)
      throw new SvcError('model.not_found', `the projector of "${entry.id}" is not on disk and has no URL`)
    add(found.mmproj.url, projector, found.mmproj)
  }
  return { files, onDisk }
}

function partsWithPath(stateDir: string, entry: ModelEntry): Promise<ModelPart[]> {
  const dests = partDests(stateDir, entry)
  return Promise.all(
    (entry.parts ?? []).map(async (part, i) => {
      const { path: _was, ...rest } = part
      const dest = dests[i]
      const size = await fileSize(dest)
      return size !== undefined && dest ? { ...rest, path: dest, size } : rest
    }),
  )
}

/** The projector with `path` set when it is on disk (a local file, or the pulled one). */
function projectorWithPath(
  stateDir: string,
  entry: ModelEntry,
  mmproj: ProjectorFile,
): Promise<ProjectorFile> {
  return projectorOnDisk(mmproj, mmproj.url ? [mmproj.path, projectorDest(stateDir, entry)] : [mmproj.path])
}

/** Removes `dir` and its parents while they are empty, up to (not including) `top`. */
export async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let at = dir; at.startsWith(`${top}/`); at = dirname(at)) {
    const removed = await rmdir(at).then(
      () => true,
      () => false,
    )
    if (!removed) return
  }
}

/**
 * Deletes what a pull put on disk for `entry` (its file at `dest`, the shards, a downloaded projector,
 * their `.part`s; one the user named by path is theirs to keep), then the folders left empty.
 * Whether the model's file was there.
 */
export async function removeModelFiles(stateDir: string, entry: ModelEntry, dest: string): Promise<boolean> {
  const present = (await stat(dest).catch(() => undefined))?.isFile() ?? false
  for (const file of [dest, projectorDest(stateDir, entry), ...partDests(stateDir, entry)]) {
    if (!file) continue
    await rm(file, { force: true })
    await rm(`${file}.part`, { force: true })
  }
  await removeEmptyDirs(dirname(dest), join(stateDir, 'models'))
  return present
}

/** A file already at `path` for `entry` must have the sha256 asked for (it is what would be served). */
export async function checkPresentFile(path: string, entry: ModelEntry, sha256: string): Promise<void> {
  if (!(await stat(path).catch(() => undefined))?.isFile()) return
  const digest = await sha256OfFile(path)
  if (digest !== sha256) {
    throw new SvcError(
      'request.invalid',
      `the file already pulled as "${entry.id}" has sha256 ${digest}, not ${sha256}; delete ${path} to pull ${entry.url} again`,
      { param: 'sha256' },
    )
  }
}
