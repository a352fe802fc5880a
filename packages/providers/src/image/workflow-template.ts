/**
 * Workflow templates (`workflows/<id>.json` + `workflows/<id>.meta.json`, see workflows/README.md).
 * The graph is a complete ComfyUI API-format prompt whose literal values are the model's defaults;
 * the sidecar says which `[node, input]` receives each request value. Filling a template copies the
 * graph and writes only those inputs, so an unfilled template is itself a valid prompt.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import * as v from 'valibot'

export const WORKFLOW_INPUTS = [
  'prompt',
  'negative_prompt',
  'seed',
  'steps',
  'cfg',
  'width',
  'height',
  'batch_size',
  'checkpoint',
  'filename_prefix',
] as const
export type WorkflowInput = (typeof WORKFLOW_INPUTS)[number]

/** The inputs an edit graph has besides those: the uploaded image, its mask (inpaint), the strength. */
export const EDIT_INPUTS = ['image', 'mask', 'denoise'] as const
export type EditInput = (typeof EDIT_INPUTS)[number]

/** What an edit template does: image-to-image (no mask) or inpainting (with one). */
export const EDIT_KINDS = ['img2img', 'inpaint'] as const
export type EditKind = (typeof EDIT_KINDS)[number]

const NodeInputSchema = v.tuple([v.string(), v.string()])

export const WorkflowMetaSchema = v.object({
  model: v.string(),
  /** Edit templates (`<id>.img2img`, `<id>.inpaint`): which edit; absent for a generation template. */
  edit: v.optional(v.picklist(EDIT_KINDS)),
  source: v.optional(v.string()),
  /** The SaveImage node whose images are the result. */
  output: v.string(),
  size_multiple: v.pipe(v.number(), v.integer(), v.minValue(1)),
  max_steps: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** `distilled`: a requested cfg of 0–1 means "guidance off", which is ComfyUI's 1.0. */
  cfg_mode: v.picklist(['standard', 'distilled']),
  inputs: v.object({
    ...(Object.fromEntries(WORKFLOW_INPUTS.map((k) => [k, NodeInputSchema])) as Record<
      WorkflowInput,
      typeof NodeInputSchema
    >),
    ...(Object.fromEntries(EDIT_INPUTS.map((k) => [k, v.optional(NodeInputSchema)])) as Record<
      EditInput,
      v.OptionalSchema<typeof NodeInputSchema, undefined>
    >),
  }),
})
export type WorkflowMeta = v.InferOutput<typeof WorkflowMetaSchema>

export const ApiGraphSchema = v.record(
  v.string(),
  v.looseObject({ class_type: v.string(), inputs: v.record(v.string(), v.unknown()) }),
)
/** A ComfyUI API-format graph. Values may be `bigint` (seeds); send it with `stringifyJsonBig`. */
export type ApiGraph = v.InferOutput<typeof ApiGraphSchema>

export interface WorkflowTemplate {
  id: string
  graph: ApiGraph
  meta: WorkflowMeta
  /** The graph's own width × height: the model's native size. */
  nativeSize: { width: number; height: number }
  /** The graph's own `ckpt_name`. */
  checkpoint: string
}

/** The values a request sets; `undefined` keeps the template's default. */
export interface WorkflowValues {
  prompt: string
  negativePrompt: string
  seed: bigint
  steps?: number
  cfg?: number
  width: number
  height: number
  batchSize: number
  checkpoint: string
  filenamePrefix: string
  /** Edit templates: the uploaded image's name as ComfyUI answered it (`svc/<id>-image.png`). */
  image?: string
  /** Inpaint templates: the uploaded mask's name. */
  mask?: string
  /** Edit templates: the sampler's denoise (0–1); undefined keeps the template's. */
  denoise?: number
}

const TEMPLATE_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/

function invalid(file: string, why: string): never {
  throw new SvcError('internal.error', `workflow template ${file}: ${why}`)
}

/**
 * Reads and checks `<dir>/<id>.json` and `<dir>/<id>.meta.json`: both parse, every mapped
 * `[node, input]` exists in the graph with a default value, and the output node exists. Throws
 * `SvcError('internal.error')` naming the file and the problem (a broken template is svc's fault).
 */
export async function loadWorkflowTemplate(dir: string, id: string): Promise<WorkflowTemplate> {
  if (!TEMPLATE_ID.test(id)) invalid(id, 'not a template id')
  const read = async (name: string) => {
    try {
      return JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown
    } catch (error) {
      return invalid(name, (error as Error).message)
    }
  }
  const graphResult = v.safeParse(ApiGraphSchema, await read(`${id}.json`))
  if (!graphResult.success) invalid(`${id}.json`, 'not an API-format graph ({"<id>": {class_type, inputs}})')
  const metaResult = v.safeParse(WorkflowMetaSchema, await read(`${id}.meta.json`))
  if (!metaResult.success) {
    const issue = metaResult.issues[0]
    invalid(`${id}.meta.json`, `field "${v.getDotPath(issue) ?? '?'}": ${issue.message}`)
  }
  const graph = graphResult.output
  const meta = metaResult.output
  if (!graph[meta.output]) invalid(`${id}.meta.json`, `output node "${meta.output}" is not in the graph`)
  const needed: readonly (WorkflowInput | EditInput)[] = meta.edit
    ? [...WORKFLOW_INPUTS, 'image', 'denoise', ...(meta.edit === 'inpaint' ? (['mask'] as const) : [])]
    : WORKFLOW_INPUTS
  for (const key of needed) {
    const at = meta.inputs[key]
    if (!at) invalid(`${id}.meta.json`, `inputs.${key} is missing (an ${meta.edit} template needs it)`)
    const [node, input] = at
    if (!graph[node] || !(input in graph[node].inputs)) {
      invalid(`${id}.meta.json`, `inputs.${key} points at ${node}.${input}, which the graph does not have`)
    }
  }
  const at = (key: WorkflowInput) => {
    const [node, input] = meta.inputs[key]
    return graph[node]!.inputs[input]
  }
  const width = at('width')
  const height = at('height')
  const checkpoint = at('checkpoint')
  if (typeof width !== 'number' || typeof height !== 'number')
    invalid(`${id}.json`, 'width/height are not numbers')
  if (typeof checkpoint !== 'string') invalid(`${id}.json`, 'the checkpoint input is not a file name')
  return { id, graph, meta, nativeSize: { width, height }, checkpoint }
}

/** A copy of the template's graph with the request's values written in. Pure. */
export function fillWorkflow(template: WorkflowTemplate, values: WorkflowValues): ApiGraph {
  const graph = structuredClone(template.graph)
  const set = (key: WorkflowInput | EditInput, value: unknown) => {
    const at = template.meta.inputs[key]
    if (value === undefined || !at) return
    graph[at[0]]!.inputs[at[1]] = value
  }
  set('prompt', values.prompt)
  set('negative_prompt', values.negativePrompt)
  set('seed', values.seed)
  set('steps', values.steps)
  set('cfg', values.cfg)
  set('width', values.width)
  set('height', values.height)
  set('batch_size', values.batchSize)
  set('checkpoint', values.checkpoint)
  set('filename_prefix', values.filenamePrefix)
  set('image', values.image)
  set('mask', values.mask)
  set('denoise', values.denoise)
  return graph
}

/** The OpenAI request field that feeds `node.input`, for error `param`s (null: not the client's). */
export function requestParamFor(template: WorkflowTemplate, node: string, input: string): string | null {
  const key = [...WORKFLOW_INPUTS, ...EDIT_INPUTS].find((k) => {
    const at = template.meta.inputs[k]
    return at?.[0] === node && at[1] === input
  })
  switch (key) {
    case 'denoise':
      return 'strength'
    case 'width':
    case 'height':
      return 'size'
    case 'batch_size':
      return 'n'
    case undefined:
    case 'checkpoint':
    case 'filename_prefix':
      return null
    default:
      return key
  }
}
