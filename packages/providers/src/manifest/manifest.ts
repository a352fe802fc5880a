/**
 * `manifests/images.toml`: the container images svc runs, one `[image.<name>]` table per provider ×
 * backend, each pinned by digest. Parsing never throws (a broken file is a value naming the file, the
 * entry and the field); running an entry whose digest is empty does — with the command that fixes it.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { BACKENDS, parseTomlText, SvcError } from '@svc/core'
import * as v from 'valibot'

export const IMAGE_SOURCES = ['registry', 'local'] as const
export type ImageSource = (typeof IMAGE_SOURCES)[number]

export const GPU_VENDORS = ['amd', 'nvidia', 'intel'] as const
export type GpuVendor = (typeof GPU_VENDORS)[number]

export const IMAGE_ENTRY_NAME = /^[a-z][a-z0-9-]{0,63}$/
const DIGEST = /^(sha256:[0-9a-f]{64})?$/

export const ImageEntrySchema = v.strictObject({
  /** Provider kind that runs it (`llm`, `npu`, `stt`, `tts`, `image`), or `webui` for the chat front end. */
  provider: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,31}$/, 'a lower-case provider kind')),
  backend: v.optional(v.picklist(BACKENDS)),
  repository: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9]([a-z0-9._:-]*[a-z0-9])?(\/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*$/, 'an image repository'),
  ),
  tag: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, 'an image tag')),
  /** Empty (or absent) until `svc manifest pin` fills it in. */
  digest: v.optional(
    v.pipe(v.string(), v.regex(DIGEST, '"sha256:" and 64 hex digits, or "" until pinned')),
    '',
  ),
  /** `registry` (pulled by digest) or `local` (built on this machine; pinned to its image id). */
  source: v.optional(v.picklist(IMAGE_SOURCES)),
  /** The port the upstream listens on inside the container when the image fixes it (Kokoro: 8880). */
  port: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))),
  /** Replaces argv[0] of the provider's command (an image whose binary is not on its PATH). */
  program: v.optional(v.pipe(v.string(), v.regex(/^\//, 'an absolute path in the image'))),
  env: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), v.string())),
  /** Writable state kept across restarts: `"<dir under <state>/volumes>:/path/in/container"`. */
  volumes: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._/-]*:\/\S*$/, '"name:/container/path"'))),
  ),
  /** GPU vendor the image's drivers support (the Strix Halo toolboxes carry Mesa RADV / ROCm: amd). */
  gpu_vendor: v.optional(v.picklist(GPU_VENDORS)),
  description: v.optional(v.string()),
})
export type ImageEntry = v.InferOutput<typeof ImageEntrySchema>

export const ImagesFileSchema = v.strictObject({
  image: v.record(
    v.pipe(v.string(), v.regex(IMAGE_ENTRY_NAME, 'an entry name like "llama-rocm"')),
    v.unknown(),
  ),
})

export interface ImageManifest {
  /** The file it was read from (for messages). */
  readonly file: string
  readonly entries: Readonly<Record<string, ImageEntry>>
  /** The entry, or throws `backend.unavailable` naming the file when there is none. */
  entry(name: string): ImageEntry
  /**
   * What to pull and run: `repository@sha256:…` (registry images) or the image id `sha256:…` (local
   * builds). Throws `backend.unavailable` when the digest is missing, naming the entry and the
   * `svc manifest pin` command; never falls back to the tag.
   */
  reference(name: string): string
}

export type ParsedManifest = { ok: true; manifest: ImageManifest } | { ok: false; error: string }

/** Parses the text of `images.toml`. Pure; never throws. */
export function parseImageManifest(text: string, file = 'manifests/images.toml'): ParsedManifest {
  const toml = parseTomlText(text, file)
  if (!toml.ok) return toml
  const top = v.safeParse(ImagesFileSchema, toml.data)
  if (!top.success) {
    const issue = top.issues[0]
    return { ok: false, error: `${file}: ${v.getDotPath(issue) ?? 'top level'}: ${issue.message}` }
  }
  const entries: Record<string, ImageEntry> = {}
  for (const [name, raw] of Object.entries(top.output.image)) {
    const r = v.safeParse(ImageEntrySchema, raw)
    if (!r.success) {
      const issue = r.issues[0]
      const field = v.getDotPath(issue) ?? '?'
      return { ok: false, error: `${file}: [image.${name}] field "${field}": ${issue.message}` }
    }
    entries[name] = r.output
  }
  return { ok: true, manifest: createImageManifest(entries, file) }
}

export function createImageManifest(entries: Record<string, ImageEntry>, file: string): ImageManifest {
  const entry = (name: string): ImageEntry => {
    const found = Object.hasOwn(entries, name) ? entries[name] : undefined
    if (!found) throw new SvcError('backend.unavailable', `${file} has no image entry "${name}"`)
    return found
  }
  return {
    file,
    entries,
    entry,
    reference(name) {
      const e = entry(name)
      if (!e.digest) {
        const how =
          e.source === 'local'
            ? `build it (see the comment in ${file}), then run "svc manifest pin ${name}"`
            : `run "svc manifest pin ${name}" on a machine that reaches ${e.repository.split('/')[0]}`
        throw new SvcError(
          'backend.unavailable',
          `image "${name}" (${e.repository}:${e.tag}) has no digest in ${file}; svc runs images only by digest: ${how}`,
        )
      }
      return e.source === 'local' ? e.digest : `${e.repository}@${e.digest}`
    },
  }
}

/** Reads and parses a manifest; throws `SvcError` (`internal.error`) when it cannot. */
export async function loadImageManifest(path: string): Promise<ImageManifest> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new SvcError('internal.error', `cannot read ${path}: ${(error as Error).message}`)
  }
  const parsed = parseImageManifest(text, path)
  if (!parsed.ok) throw new SvcError('internal.error', parsed.error)
  return parsed.manifest
}

/** `manifests/images.toml` of this checkout (the API and the CLI take `SVC_IMAGES_MANIFEST` over it). */
export function defaultImagesManifestPath(): string {
  return fileURLToPath(new URL('../../../../manifests/images.toml', import.meta.url))
}
