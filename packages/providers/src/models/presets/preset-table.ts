/**
 * The presets of one `presets.toml`, compiled for the questions svc asks on its paths (pure; no I/O):
 *
 * - the dispatcher: which engine a name runs on (`resolveAlias`), and a request body with the
 *   preset's fields applied (`applyRequestFields`);
 * - the slots: what a load of a name runs (`loadTarget`) with which engine settings (`engine`);
 * - the listings and `GET /api/presets`: `list`.
 *
 * Words (docs/models.md, "Presets"): a preset's **root** is the preset that says what runs — its
 * `model` names a model, or it has no `model` and its name is a model's (a ref's own settings). A
 * **variant** is a preset whose `model` names another preset: it runs its base's engine, so switching
 * between a preset and its variants never reloads. A preset is loaded under its **load name**: the
 * model it names when it only adds request fields to a plain ref (so it shares that ref's engine), and
 * its own name when it changes the engine (`args`, `ctx_size`) or runs a Hub name, URL or path.
 */
import { type Endpoint, isJsonObject } from '@svc/core'
import type { PresetFileEntry } from './preset-schema'
import { applyFields, deepMerge, type FieldRule, type RequestFields } from './request-fields'

/** One preset as compiled: its chain resolved and its request fields composed. */
export interface CompiledPreset {
  name: string
  /** The preset it is a variant of (its `model`), or null. */
  variantOf: string | null
  /** The root of its chain (itself unless a variant). */
  root: string
  /** What the root runs: a model name (ref, curated id, Hub name, URL, path, hosted ref). */
  model: string
  /** What the slots know its engine by (see the module's words). */
  loadAs: string
  /** `*`, the chain from root to itself: later wins, field by field. */
  fields: RequestFields
  /** The table as written. */
  own: PresetFileEntry
}

/** A preset as `GET /api/presets` and the listings show it. */
export interface PresetView {
  name: string
  variant_of: string | null
  model: string
  /** The name its engine is loaded under (a variant shares its base's). */
  load_as: string
  ctx_size: number | null
  args: string[]
  defaults: Record<string, unknown>
  force: Record<string, unknown>
  strip: string[]
}

/** The engine settings a load of a name gets from the presets. */
export interface PresetEngine {
  /** Engine arguments after the slot's own: `*`'s (llm models only), then the root's. */
  args: string[]
  /** Context size over the slot's: the root's, else `*`'s (llm models only). */
  ctxSize?: number
}

const NO_FIELDS: RequestFields = new Map()

/** Hub names, URLs and paths: a preset over one of these is loaded under its own name. */
export function isPlainModelName(model: string): boolean {
  return (
    !/^(hf\.co\/|huggingface\.co\/|hf:|https?:\/\/|\/|\.|~)/i.test(model) &&
    !/\.(gguf|safetensors|ckpt|bin)$/i.test(model)
  )
}

/** The request fields of `layers`, general to specific: per field, the most specific layer decides. */
export function composeFields(layers: readonly PresetFileEntry[]): RequestFields {
  const rules = new Map<string, FieldRule>()
  const put = (field: string, kind: 'default' | 'force', value: unknown) => {
    const before = rules.get(field)
    const merged =
      before?.kind === kind && isJsonObject(before.value) && isJsonObject(value)
        ? deepMerge(before.value, value)
        : value
    rules.set(field, { kind, value: merged })
  }
  for (const layer of layers) {
    for (const field of layer.strip ?? []) rules.set(field, { kind: 'strip' })
    for (const [field, value] of Object.entries(layer.defaults ?? {})) put(field, 'default', value)
    for (const [field, value] of Object.entries(layer.force ?? {})) put(field, 'force', value)
  }
  return rules.size === 0 ? NO_FIELDS : rules
}

export class PresetTable {
  /** No presets file, or one without presets: every question answers "nothing to do". */
  static readonly EMPTY = new PresetTable(new Map(), undefined)

  /** `*`'s composed fields (undefined when it has none: requests for other names pay nothing). */
  private readonly allFields: RequestFields | undefined

  constructor(
    private readonly presets: ReadonlyMap<string, CompiledPreset>,
    /** The `[presets."*"]` table, when the file has one. */
    private readonly all: PresetFileEntry | undefined,
  ) {
    const fields = all ? composeFields([all]) : NO_FIELDS
    this.allFields = fields.size > 0 ? fields : undefined
  }

  /** Whether the file named nothing at all (no preset, no `*`). */
  get empty(): boolean {
    return this.presets.size === 0 && this.all === undefined
  }

  has(name: string): boolean {
    return this.presets.has(name)
  }

  get(name: string): CompiledPreset | undefined {
    return this.presets.get(name)
  }

  /** The load name of preset `name` (see the module's words); undefined when `name` is no preset. */
  resolveAlias(name: string): string | undefined {
    return this.presets.get(name)?.loadAs
  }

  /** The fields a request for `model` (a preset, or any other name: `*`'s) gets; undefined: none. */
  requestFields(model: string): RequestFields | undefined {
    const preset = this.presets.get(model)
    return preset ? (preset.fields.size > 0 ? preset.fields : undefined) : this.allFields
  }

  /**
   * `body` with the fields for `model` applied in `endpoint`'s vocabulary (see `applyFields`), or
   * undefined when nothing applies: then the request goes as the client sent it.
   */
  applyRequestFields(
    model: string,
    endpoint: Endpoint,
    body: Record<string, unknown>,
  ): Record<string, unknown> | undefined {
    const fields = this.requestFields(model)
    return fields && applyFields(fields, endpoint, body)
  }

  /**
   * What a load of `name` runs: `id` is the name the loaded model carries (its load name), `model`
   * the name to resolve to a file. Undefined when `name` is no preset (it is loaded as it is).
   */
  loadTarget(name: string): { id: string; model: string } | undefined {
    const preset = this.presets.get(name)
    if (!preset) return undefined
    if (preset.loadAs !== preset.root) return { id: preset.loadAs, model: preset.loadAs }
    return { id: preset.root, model: preset.model }
  }

  /**
   * The engine settings of a load of `name` (a preset or any model name) whose model is for
   * `provider`: `*`'s apply to llm models only (its args are llama-server's), a root's to its model.
   */
  engine(name: string, provider: string): PresetEngine {
    const preset = this.presets.get(name)
    const root = preset && preset.loadAs === preset.root ? this.presets.get(preset.root)?.own : undefined
    const all = provider === 'llm' ? this.all : undefined
    const ctxSize = root?.ctx_size ?? all?.ctx_size
    return {
      args: [...(all?.args ?? []), ...(root?.args ?? [])],
      ...(ctxSize !== undefined ? { ctxSize } : {}),
    }
  }

  /** The context size a preset's engine runs with, when a preset or `*` sets one. */
  contextSize(name: string): number | undefined {
    const preset = this.presets.get(name)
    const root = preset ? this.presets.get(preset.root)?.own : undefined
    return root?.ctx_size ?? this.all?.ctx_size
  }

  /** Every preset in file order (`*` first when present). */
  list(): PresetView[] {
    const views = [...this.presets.values()].map(
      (p): PresetView => ({
        name: p.name,
        variant_of: p.variantOf,
        model: p.model,
        load_as: p.loadAs,
        ctx_size: p.own.ctx_size ?? null,
        args: p.own.args ?? [],
        defaults: p.own.defaults ?? {},
        force: p.own.force ?? {},
        strip: p.own.strip ?? [],
      }),
    )
    if (!this.all) return views
    const all: PresetView = {
      name: '*',
      variant_of: null,
      model: '*',
      load_as: '*',
      ctx_size: this.all.ctx_size ?? null,
      args: this.all.args ?? [],
      defaults: this.all.defaults ?? {},
      force: this.all.force ?? {},
      strip: this.all.strip ?? [],
    }
    return [all, ...views]
  }

  /** The presets that name a model (not another preset), with that model: what must exist. */
  modelsNamed(): { preset: string; model: string }[] {
    return [...this.presets.values()]
      .filter((p) => p.root === p.name)
      .map((p) => ({ preset: p.name, model: p.model }))
  }
}
