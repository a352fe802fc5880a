/**
 * `<state>/models/registry.json`: the refs registered from a local path or a URL. Only a missing
 * file means "nothing registered"; a file that cannot be read (permissions, too many open files, a
 * directory in its place) or does not parse is a problem to report, never an empty registry: the
 * next registration would otherwise write over it with one entry and forget every other ref.
 */
import { readFile } from 'node:fs/promises'
import type { ModelEntry } from '@svc/core'
import { writeFileAtomic } from '@svc/core/node'

export type RegistryRead = { ok: true; models: ModelEntry[] } | { ok: false; error: string }

/** Reads the registry; `{ok: true, models: []}` when there is no file. Never throws. */
export async function readRegistryFile(path: string): Promise<RegistryRead> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { ok: true, models: [] }
    return { ok: false, error: `cannot read ${path}: ${code ?? (error as Error).message}` }
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    return { ok: false, error: `${path} is not valid JSON: ${(error as Error).message}` }
  }
  const models = (data as { models?: unknown } | null)?.models
  if (
    typeof data !== 'object' ||
    data === null ||
    !Array.isArray(models) ||
    !models.every((m) => typeof m === 'object' && m !== null && typeof (m as ModelEntry).id === 'string')
  ) {
    return { ok: false, error: `${path} is not a registry: expected {"models": [{"id": …}, …]}` }
  }
  return { ok: true, models: models as ModelEntry[] }
}

/** Writes the registry atomically; the caller holds its lock and has read it successfully. */
export async function writeRegistryFile(path: string, models: ModelEntry[]): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify({ models }, null, 2)}\n`)
}
