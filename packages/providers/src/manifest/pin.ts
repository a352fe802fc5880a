/**
 * `svc manifest pin`: resolves each entry's tag to a digest and writes the digests back into
 * `images.toml`, editing only the `digest = "…"` lines so every comment and the layout survive
 * (re-stringifying TOML would drop them). Registry images resolve through the Registry HTTP API v2;
 * `source = "local"` images (built on this machine) resolve to their image id through the engine.
 */
import { readFile } from 'node:fs/promises'
import { writeFileAtomic } from '@svc/core/node'
import Docker from 'dockerode'
import { type ImageEntry, parseImageManifest } from './manifest'
import { resolveDigest } from './registry-client'

export interface PinResult {
  name: string
  ok: boolean
  /** The digest now in the file (the new one when pinned, the old one otherwise). */
  digest: string
  /** Whether the file's digest for this entry changed. */
  changed: boolean
  /** Why it could not be resolved (entry left unchanged). */
  error?: string
}

export interface PinOptions {
  file: string
  /** Entries to pin; default all. Unknown names fail with a result of their own. */
  names?: readonly string[]
  /** Resolves a registry entry's tag (default: the Registry HTTP API v2). */
  resolveRegistry?: (entry: ImageEntry, signal: AbortSignal) => Promise<string>
  /** Resolves a local entry to its image id (default: the container engine at `DOCKER_HOST`). */
  resolveLocal?: (entry: ImageEntry, signal: AbortSignal) => Promise<string>
  signal?: AbortSignal
}

export interface PinReport {
  results: PinResult[]
  /** Whether the file was rewritten (false when nothing changed). */
  written: boolean
}

/**
 * Pins the requested entries. Resolves them concurrently; entries that fail are reported and left as
 * they were. Writes the file atomically, once, only if a digest changed. Throws only when the file
 * cannot be read, parsed or written.
 */
export async function pinManifest(options: PinOptions): Promise<PinReport> {
  const text = await readFile(options.file, 'utf8')
  const parsed = parseImageManifest(text, options.file)
  if (!parsed.ok) throw new Error(parsed.error)
  const entries = parsed.manifest.entries
  const names = options.names?.length ? [...new Set(options.names)] : Object.keys(entries)
  const signal = options.signal ?? new AbortController().signal
  const registry = options.resolveRegistry ?? defaultRegistryResolver
  const local = options.resolveLocal ?? defaultLocalResolver

  const results = await Promise.all(
    names.map(async (name): Promise<PinResult> => {
      const entry = Object.hasOwn(entries, name) ? entries[name] : undefined
      if (!entry) {
        return { name, ok: false, digest: '', changed: false, error: `no entry "${name}" in ${options.file}` }
      }
      try {
        const digest = await (entry.source === 'local' ? local : registry)(entry, signal)
        return { name, ok: true, digest, changed: digest !== entry.digest }
      } catch (error) {
        return { name, ok: false, digest: entry.digest, changed: false, error: (error as Error).message }
      }
    }),
  )

  const updates = Object.fromEntries(results.filter((r) => r.changed).map((r) => [r.name, r.digest]))
  if (Object.keys(updates).length === 0) return { results, written: false }
  const { text: next, missing } = setDigests(text, updates)
  for (const r of results) {
    if (missing.includes(r.name)) {
      Object.assign(r, {
        ok: false,
        changed: false,
        digest: entries[r.name]?.digest ?? '',
        error: `cannot find a [image.${r.name}] table header to edit in ${options.file}`,
      })
    }
  }
  if (next === text) return { results, written: false }
  await writeFileAtomic(options.file, next)
  return { results, written: true }
}

async function defaultRegistryResolver(entry: ImageEntry, signal: AbortSignal): Promise<string> {
  return (await resolveDigest(entry.repository, entry.tag, { signal })).digest
}

/** A local build has no registry digest; its image id (the config's sha256) pins it just as well. */
async function defaultLocalResolver(entry: ImageEntry, _signal: AbortSignal): Promise<string> {
  const ref = `${entry.repository}:${entry.tag}`
  try {
    const info = (await new Docker({ timeout: 10_000 }).getImage(ref).inspect()) as { Id?: string }
    if (!info.Id?.startsWith('sha256:')) throw new Error(`the engine returned no image id for ${ref}`)
    return info.Id
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode
    if (status === 404) throw new Error(`image ${ref} is not built on this machine`)
    throw new Error(`cannot ask the container engine about ${ref}: ${(error as Error).message}`)
  }
}

const TABLE = /^\s*\[\s*image\s*\.\s*(?:"([^"]+)"|([A-Za-z0-9_-]+))\s*\]\s*(#.*)?$/
const ANY_TABLE = /^\s*\[/
const DIGEST_LINE = /^(\s*digest\s*=\s*)(?:"[^"]*"|'[^']*')(.*)$/
const TAG_LINE = /^(\s*)tag\s*=/

/**
 * Sets `digest = "<value>"` inside each `[image.<name>]` table of `text`, changing nothing else: the
 * value of an existing digest line is replaced in place (a trailing comment stays); a table without
 * one gets a line after its `tag`. Names whose table is not found come back in `missing`.
 */
export function setDigests(
  text: string,
  digests: Readonly<Record<string, string>>,
): { text: string; missing: string[] } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const lines = text.split(/\r?\n/)
  const seen = new Set<string>()
  const done = new Set<string>()
  let current: string | undefined
  let tagIndex = -1
  const inserts: { after: number; line: string }[] = []
  const closeTable = () => {
    if (current !== undefined && seen.has(current) && !done.has(current) && tagIndex >= 0) {
      const indent = lines[tagIndex]?.match(TAG_LINE)?.[1] ?? ''
      inserts.push({ after: tagIndex, line: `${indent}digest = "${digests[current]}"` })
      done.add(current)
    }
  }
  lines.forEach((line, i) => {
    const table = line.match(TABLE)
    if (table || ANY_TABLE.test(line)) {
      closeTable()
      const name = table?.[1] ?? table?.[2]
      current = name !== undefined && Object.hasOwn(digests, name) ? name : undefined
      tagIndex = -1
      if (current !== undefined) seen.add(current)
      return
    }
    if (current === undefined) return
    if (TAG_LINE.test(line)) tagIndex = i
    const m = line.match(DIGEST_LINE)
    if (m && !done.has(current)) {
      lines[i] = `${m[1]}"${digests[current]}"${m[2]}`
      done.add(current)
    }
  })
  closeTable()
  for (const { after, line } of inserts.sort((a, b) => b.after - a.after)) lines.splice(after + 1, 0, line)
  const missing = Object.keys(digests).filter((n) => !done.has(n))
  return { text: lines.join(eol), missing }
}
