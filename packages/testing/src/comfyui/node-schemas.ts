/**
 * The node schemas the stand-in knows: ComfyUI's real `GET /object_info` entries for the classes the
 * curated workflows use (`object_info.json`, see README.md here), with the file-list combos
 * (`ckpt_name`, `unet_name`, `clip_name1/2`, `vae_name`) replaced by the files the stand-in is told it
 * has, as a real ComfyUI lists its model directories.
 */
import { readFileSync } from 'node:fs'
import { isDict, type PyDict, type PyValue, parsePyJson } from './py-values'

/** Files in the model folders, as ComfyUI would list them. */
export interface ModelFiles {
  /** `models/checkpoints` (the `ckpt_name` combo). */
  checkpoints: readonly string[]
  /** `models/diffusion_models` (`unet_name`). Default: the example list in object_info.json. */
  diffusionModels?: readonly string[]
  /** `models/text_encoders` (`clip_name1`, `clip_name2`). */
  textEncoders?: readonly string[]
  /** `models/vae` (`vae_name`; ComfyUI always appends `pixel_space`). */
  vaes?: readonly string[]
}

export interface InputInfo {
  /** A type name (`INT`, `MODEL`, …) or the list of a combo's choices. */
  type: string | PyValue[]
  category: 'required' | 'optional'
  /** The options dict (`{}` when the schema has none), as `get_input_info` returns it. */
  extra: PyDict
}

export interface NodeSchema {
  name: string
  /** `GET /object_info/<name>` value. */
  info: PyDict
  outputNode: boolean
  /** RETURN_TYPES. */
  outputs: string[]
  /** required ∪ optional, in declaration order. */
  inputs: Map<string, InputInfo>
}

export type NodeSchemas = ReadonlyMap<string, NodeSchema>

const RAW = parsePyJson(readFileSync(new URL('./object_info.json', import.meta.url), 'utf8'))

/** ComfyUI sorts directory listings (`sorted(...)` in folder_paths). */
function listing(files: readonly string[]): string[] {
  return [...new Set(files)].sort()
}

function setCombo(info: PyDict, input: string, choices: string[]): void {
  const required = (info.input as PyDict).required as PyDict
  const entry = required[input] as PyValue[]
  entry[0] = choices
}

/** Builds the schemas for a stand-in that has `files` in its model folders. */
export function createNodeSchemas(files: ModelFiles): NodeSchemas {
  if (!isDict(RAW)) throw new Error('object_info.json: expected an object')
  const schemas = new Map<string, NodeSchema>()
  for (const [name, value] of Object.entries(RAW)) {
    if (name === '_source' || !isDict(value)) continue
    const info = structuredClonePy(value)
    schemas.set(name, toSchema(name, info))
  }
  const edit = (cls: string, input: string, choices: string[]) => {
    const s = schemas.get(cls)
    if (!s) return
    setCombo(s.info, input, choices)
    schemas.set(cls, toSchema(cls, s.info))
  }
  edit('CheckpointLoaderSimple', 'ckpt_name', listing(files.checkpoints))
  if (files.diffusionModels) edit('UNETLoader', 'unet_name', listing(files.diffusionModels))
  if (files.textEncoders) {
    edit('DualCLIPLoader', 'clip_name1', listing(files.textEncoders))
    edit('DualCLIPLoader', 'clip_name2', listing(files.textEncoders))
  }
  if (files.vaes) edit('VAELoader', 'vae_name', [...listing(files.vaes), 'pixel_space'])
  return schemas
}

function toSchema(name: string, info: PyDict): NodeSchema {
  const inputs = new Map<string, InputInfo>()
  const declared = isDict(info.input) ? info.input : {}
  for (const category of ['required', 'optional'] as const) {
    const group = declared[category]
    if (!isDict(group)) continue
    for (const [input, entry] of Object.entries(group)) {
      if (!Array.isArray(entry) || entry.length === 0) continue
      const type = entry[0]
      const extra = entry[1]
      inputs.set(input, {
        type: Array.isArray(type) ? type : String(type),
        category,
        extra: isDict(extra) ? extra : {},
      })
    }
  }
  return {
    name,
    info,
    outputNode: info.output_node === true,
    outputs: Array.isArray(info.output) ? info.output.map(String) : [],
    inputs,
  }
}

/** A deep copy that keeps `PyFloat`s and bigints (JSON round trips would not). */
export function structuredClonePy<T extends PyValue>(v: T): T {
  if (Array.isArray(v)) return v.map(structuredClonePy) as T
  if (isDict(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, structuredClonePy(x)])) as T
  return v
}

/** The type names a link may carry into an input (`validate_node_input`, non-strict). */
export function linkTypeMatches(received: string, input: string | PyValue[]): boolean {
  if (typeof input !== 'string') return false
  if (received === input || received === '*' || input === '*') return true
  const want = new Set(input.split(',').map((t) => t.trim()))
  return received.split(',').some((t) => want.has(t.trim()))
}

/** Input types whose literal values ComfyUI coerces (everything else is a link type or a combo). */
export const WIDGET_TYPES = new Set(['INT', 'FLOAT', 'STRING', 'BOOLEAN'])
