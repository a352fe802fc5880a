/**
 * `<config>/presets.toml` text → a `PresetTable`, or the one problem that refuses the file (pure,
 * never throws). A problem names the file, the preset and what was expected, in the style of the slot
 * files' messages: `presets.toml: preset "qwen3-8b": ctx_size: expected a positive integer, got "big"`.
 * The caller keeps its last good table while a file is refused.
 *
 * Refused: TOML that does not parse; a table other than `[presets."<name>"]`; an unknown field or a
 * field of the wrong type; `model`/`stream` among the request fields; one field in two of
 * `defaults`/`force`/`strip` of one preset; a variant (its `model` names another preset) that sets
 * `args` or `ctx_size` (it runs its base's engine); a chain of variants that comes back to itself.
 * Whether the models the presets name exist is a question for the model store (`checkPresetModels`).
 */
import { parseTomlText } from '@svc/core'
import * as v from 'valibot'
import {
  ALL_MODELS,
  PRESET_FIELDS,
  type PresetFileEntry,
  PresetSchema,
  PresetsFileSchema,
  RESERVED_FIELDS,
} from './preset-schema'
import { type CompiledPreset, composeFields, isPlainModelName, PresetTable } from './preset-table'

export type PresetsResult = { ok: true; table: PresetTable } | { ok: false; problem: string }

/** Parses the text of `presets.toml`; `file` only names it in messages. */
export function parsePresets(text: string, file: string): PresetsResult {
  const toml = parseTomlText(text, file)
  if (!toml.ok) return { ok: false, problem: toml.error }
  const top = v.safeParse(PresetsFileSchema, toml.data)
  if (!top.success) {
    const key = top.issues[0].path?.[0]?.key
    const what = key === 'presets' ? '"presets" must be tables' : `unknown table "${String(key)}"`
    return fail(file, `${what} (presets are written as [presets."<name>"])`)
  }
  const entries = new Map<string, PresetFileEntry>()
  for (const [name, raw] of Object.entries(top.output.presets)) {
    const checked = checkEntry(name, raw)
    if (typeof checked === 'string') return fail(file, `preset "${name}": ${checked}`)
    entries.set(name, checked)
  }
  return compile(file, entries)
}

/**
 * Checks that every model the presets name is one svc can run: `knows` answers for refs, curated
 * ids and hosted refs; Hub names, URLs and paths are taken as written (resolved when loaded). Returns
 * the problem, or undefined.
 */
export async function checkPresetModels(
  table: PresetTable,
  file: string,
  knows: (model: string) => Promise<boolean>,
): Promise<string | undefined> {
  for (const { preset, model } of table.modelsNamed()) {
    if (!isPlainModelName(model) || (await knows(model))) continue
    const detail =
      table.get(preset)?.own.model === undefined
        ? `model: expected a model to run; "${preset}" is no model svc knows (a preset without model sets the settings of the model of its name)`
        : `model: expected another preset of this file or a model svc knows (a ref, a curated id, a Hub name hf.co/<owner>/<repo>:<quant>, a URL or a path), got "${model}"`
    return `${file}: preset "${preset}": ${detail}`
  }
  return undefined
}

function fail(file: string, detail: string): PresetsResult {
  return { ok: false, problem: `${file}: ${detail}` }
}

/** One table against `PresetSchema` and the cross-field rules; the message part after the name. */
function checkEntry(name: string, raw: unknown): PresetFileEntry | string {
  if (name.trim() === '' || /\s/.test(name)) return 'a preset name has no spaces and is not empty'
  const result = v.safeParse(PresetSchema, raw)
  if (!result.success) {
    const issue = deepest(result.issues[0])
    const path = (issue.path ?? []).map((p) => String(p.key))
    if (issue.type === 'strict_object' && issue.expected === 'never') {
      return path.length <= 1
        ? `unknown field "${path[0]}" (allowed: ${PRESET_FIELDS.join(', ')})`
        : `${path.join('.')}: unknown field`
    }
    if (path.length === 0) return `expected a table, got ${issue.received}`
    const expected = issue.message.startsWith('Invalid') ? (issue.expected ?? 'a valid value') : issue.message
    return `${path.join('.')}: expected ${expected}, got ${issue.received}`
  }
  const entry = result.output
  const seen = new Map<string, string>()
  const kinds: [string, readonly string[]][] = [
    ['strip', entry.strip ?? []],
    ['defaults', Object.keys(entry.defaults ?? {})],
    ['force', Object.keys(entry.force ?? {})],
  ]
  for (const [kind, fields] of kinds) {
    for (const field of fields) {
      if ((RESERVED_FIELDS as readonly string[]).includes(field))
        return `${kind}: "${field}" is not a preset's to set (the model is the preset's name; streaming is the client's choice)`
      const other = seen.get(field)
      if (other)
        return `${kind}: "${field}" is in ${other} too; name a field in one of defaults, force, strip`
      seen.set(field, kind)
    }
  }
  if (name === ALL_MODELS && entry.model !== undefined)
    return 'model: "*" applies to every model and runs none; leave model out'
  return entry
}

/** valibot's deepest issue of a union or nested object, with its whole path. */
function deepest(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  let best = issue
  for (const sub of issue.issues ?? []) {
    const deeper = deepest(sub)
    const path = [...(issue.path ?? []), ...(deeper.path ?? [])] as v.BaseIssue<unknown>['path']
    if ((path?.length ?? 0) > (best.path?.length ?? 0)) best = { ...deeper, path }
  }
  return best
}

/** Resolves each preset's chain (variants → root), refusing cycles and engine settings on variants. */
function compile(file: string, entries: ReadonlyMap<string, PresetFileEntry>): PresetsResult {
  const all = entries.get(ALL_MODELS)
  const isPreset = (name: string | undefined): name is string =>
    name !== undefined && name !== ALL_MODELS && entries.has(name)
  const compiled = new Map<string, CompiledPreset>()
  for (const [name, own] of entries) {
    if (name === ALL_MODELS) continue
    const base = own.model !== name && isPreset(own.model) ? own.model : null
    if (base && (own.args !== undefined || own.ctx_size !== undefined)) {
      const field = own.args !== undefined ? 'args' : 'ctx_size'
      return fail(
        file,
        `preset "${name}": ${field}: a variant (model = "${base}") runs the engine of "${base}"; set ${field} there, or name a model instead of a preset`,
      )
    }
    // Walk to the root: the first preset whose model is no preset (or is its own name).
    const chain = [name]
    let at = own
    let atName = name
    while (at.model !== undefined && at.model !== atName && isPreset(at.model)) {
      if (chain.includes(at.model))
        return fail(
          file,
          `preset "${name}": model: the variants lead back to themselves (${[...chain, at.model].join(' → ')})`,
        )
      atName = at.model
      at = entries.get(atName)!
      chain.push(atName)
    }
    const model = at.model ?? atName
    const ownEngine = at.args !== undefined || at.ctx_size !== undefined
    const loadAs = ownEngine || !isPlainModelName(model) ? atName : model
    const layers = [...(all ? [all] : []), ...chain.reverse().map((n) => entries.get(n)!)]
    compiled.set(name, {
      name,
      variantOf: base,
      root: atName,
      model,
      loadAs,
      fields: composeFields(layers),
      own,
    })
  }
  return { ok: true, table: new PresetTable(compiled, all) }
}
