/**
 * The shape of `<config>/presets.toml` (docs/models.md, "Presets"): `[presets."<name>"]` tables, each
 * checked on its own so that a wrong field is reported with the preset it is in.
 */
import * as v from 'valibot'

/** The name of the section that applies to every model. */
export const ALL_MODELS = '*'

/** Request fields a preset may not set: the name is the preset's own, and streaming is the client's. */
export const RESERVED_FIELDS = ['model', 'stream'] as const

const fieldName = v.pipe(v.string(), v.minLength(1, 'a field name'))
const requestFields = v.record(fieldName, v.unknown())

/** The file's top level: only `presets` tables. */
export const PresetsFileSchema = v.strictObject({
  presets: v.optional(v.record(v.string(), v.unknown()), {}),
})

/** One `[presets."<name>"]` table. */
export const PresetSchema = v.strictObject({
  /** What it runs: a model name (ref, curated id, Hub name, URL, path) or another preset's name. */
  model: v.optional(v.pipe(v.string(), v.minLength(1, 'a model name or the name of another preset'))),
  ctx_size: v.optional(
    v.pipe(
      v.number('a positive integer'),
      v.integer('a positive integer'),
      v.minValue(1, 'a positive integer'),
      v.maxValue(4_194_304, 'a context size of at most 4194304'),
    ),
  ),
  args: v.optional(v.array(v.string('a string'), 'a list of strings')),
  defaults: v.optional(requestFields),
  force: v.optional(requestFields),
  strip: v.optional(v.array(fieldName, 'a list of field names')),
})
export type PresetFileEntry = v.InferOutput<typeof PresetSchema>

/** The fields a preset table may have, for "unknown field" messages. */
export const PRESET_FIELDS = Object.keys(PresetSchema.entries)
