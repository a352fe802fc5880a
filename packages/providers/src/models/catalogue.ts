/**
 * The curated catalogue, `manifests/models.toml`: one `[[model]]` table per entry. Parsing never
 * throws; a broken entry is reported with the file, the entry and the field.
 */
import { readFile } from 'node:fs/promises'
import { CAPABILITIES, LLM_ROLES, type ModelEntry, parseTomlText } from '@svc/core'
import * as v from 'valibot'

const id = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9][a-z0-9._-]{0,127}$/, 'a lower-case id of a-z, 0-9, ., _ and -'),
)
const sha256 = v.pipe(v.string(), v.regex(/^([0-9a-f]{64})?$/, '64 hex characters (or empty when unknown)'))

export const CatalogueEntrySchema = v.strictObject({
  id,
  provider: v.picklist(['llm', 'npu', 'stt', 'tts', 'image']),
  /** `builtin`: the engine is the model (espeak-ng) or carries it (Kokoro's image); no url, no file. */
  format: v.picklist(['gguf', 'checkpoint', 'safetensors', 'npu', 'whisper', 'onnx', 'builtin']),
  role: v.optional(v.picklist(LLM_ROLES)),
  url: v.optional(v.pipe(v.string(), v.url())),
  size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  sha256: v.optional(sha256),
  family: v.optional(v.string()),
  min_vram_gb: v.optional(v.pipe(v.number(), v.minValue(0))),
  license: v.optional(v.string()),
  license_url: v.optional(v.pipe(v.string(), v.url())),
  badge: v.optional(v.string()),
  description: v.optional(v.string()),
  /** Image models: the workflow template in `workflows/` (absent = catalogued but not offered). */
  workflow: v.optional(v.string()),
  /** Image models: native size `WxH`. */
  native_size: v.optional(v.pipe(v.string(), v.regex(/^\d+x\d+$/))),
  /** llm models that see images: the projector GGUF (`mmproj`), downloaded next to the model. */
  mmproj: v.optional(
    v.strictObject({
      url: v.pipe(v.string(), v.url()),
      size: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      sha256: v.optional(sha256),
    }),
  ),
  /** Capabilities beyond what provider and role imply (e.g. `voice_cloning`). */
  capabilities: v.optional(v.array(v.picklist(CAPABILITIES))),
})

export const CatalogueFileSchema = v.strictObject({ model: v.array(v.looseObject({})) })

export type CatalogueEntry = v.InferOutput<typeof CatalogueEntrySchema>

export interface Catalogue {
  entries: CatalogueEntry[]
  errors: string[]
}

export function parseCatalogue(text: string, file = 'manifests/models.toml'): Catalogue {
  const toml = parseTomlText(text, file)
  if (!toml.ok) return { entries: [], errors: [toml.error] }
  const top = v.safeParse(CatalogueFileSchema, toml.data)
  if (!top.success) return { entries: [], errors: [`${file}: expected [[model]] tables`] }
  const entries: CatalogueEntry[] = []
  const errors: string[] = []
  const seen = new Set<string>()
  top.output.model.forEach((raw, i) => {
    const r = v.safeParse(CatalogueEntrySchema, raw)
    if (!r.success) {
      const issue = r.issues[0]
      errors.push(
        `${file}: model #${i + 1}${typeof raw.id === 'string' ? ` (${raw.id})` : ''}: field "${v.getDotPath(issue) ?? '?'}": ${issue.message}`,
      )
    } else if (r.output.mmproj && r.output.provider !== 'llm') {
      errors.push(
        `${file}: model "${r.output.id}": field "mmproj": a vision projector goes with provider = "llm"`,
      )
    } else if (seen.has(r.output.id)) {
      errors.push(`${file}: model "${r.output.id}" is listed twice`)
    } else {
      seen.add(r.output.id)
      entries.push(r.output)
    }
  })
  return { entries, errors }
}

export async function loadCatalogue(path: string): Promise<Catalogue> {
  return parseCatalogue(await readFile(path, 'utf8'), path)
}

export function catalogueToModel(entry: CatalogueEntry): ModelEntry {
  const m: ModelEntry = { id: entry.id, format: entry.format, provider: entry.provider, source: 'catalogue' }
  if (entry.role) m.role = entry.role
  if (entry.url) m.url = entry.url
  if (entry.size !== undefined) m.size = entry.size
  if (entry.sha256) m.sha256 = entry.sha256
  if (entry.family) m.family = entry.family
  if (entry.min_vram_gb !== undefined) m.minVramGb = entry.min_vram_gb
  if (entry.license) m.license = entry.license
  if (entry.license_url) m.licenseUrl = entry.license_url
  if (entry.badge) m.badge = entry.badge
  if (entry.description) m.description = entry.description
  if (entry.workflow) m.workflow = entry.workflow
  if (entry.mmproj) {
    m.mmproj = { url: entry.mmproj.url }
    if (entry.mmproj.size !== undefined) m.mmproj.size = entry.mmproj.size
    if (entry.mmproj.sha256) m.mmproj.sha256 = entry.mmproj.sha256
  }
  if (entry.capabilities?.length) m.extraCapabilities = [...entry.capabilities]
  return m
}
