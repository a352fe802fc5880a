/**
 * The answer shapes the official `ollama` client declares (its `ChatResponse`, `GenerateResponse`,
 * `ShowResponse`, …), as valibot schemas keyed by the client's own types: a field the client's type
 * adds and these schemas do not check fails the typecheck, so "the client parses every answer, types
 * included" is checked field by field. Dates (`created_at`, `modified_at`, `expires_at`) arrive as
 * RFC 3339 strings, as from Ollama itself.
 */
import type {
  ChatResponse,
  EmbedResponse,
  GenerateResponse,
  ListResponse,
  ModelDetails,
  ModelResponse,
  ShowResponse,
} from 'ollama'
import * as v from 'valibot'

type Shape<T> = { [K in keyof T]-?: v.GenericSchema }

const date = v.pipe(
  v.string(),
  v.check((s) => !Number.isNaN(Date.parse(s)), 'an RFC 3339 date'),
)
const count = v.pipe(v.number(), v.integer(), v.minValue(0))

const details = {
  parent_model: v.string(),
  format: v.string(),
  family: v.string(),
  families: v.nullable(v.array(v.string())),
  parameter_size: v.string(),
  quantization_level: v.string(),
} satisfies Shape<ModelDetails>

const stats = {
  total_duration: count,
  load_duration: count,
  prompt_eval_count: count,
  prompt_eval_duration: count,
  eval_count: count,
  eval_duration: count,
}

const message = v.looseObject({
  role: v.string(),
  content: v.string(),
  thinking: v.optional(v.string()),
  tool_calls: v.optional(
    v.array(
      v.looseObject({
        function: v.looseObject({ name: v.string(), arguments: v.record(v.string(), v.unknown()) }),
      }),
    ),
  ),
})

export const ChatResponseSchema = v.looseObject({
  model: v.string(),
  created_at: date,
  message,
  done: v.literal(true),
  done_reason: v.string(),
  ...stats,
  logprobs: v.optional(v.array(v.unknown())),
} satisfies Shape<ChatResponse>)

export const GenerateResponseSchema = v.looseObject({
  model: v.string(),
  created_at: date,
  response: v.string(),
  thinking: v.optional(v.string()),
  done: v.literal(true),
  done_reason: v.string(),
  context: v.array(v.number()),
  ...stats,
  logprobs: v.optional(v.array(v.unknown())),
  image: v.optional(v.string()),
  completed: v.optional(v.number()),
  total: v.optional(v.number()),
} satisfies Shape<GenerateResponse>)

/** A line of a stream before the last: Ollama sends the model, the time and the piece. */
export const StreamPartSchema = v.looseObject({
  model: v.string(),
  created_at: date,
  done: v.literal(false),
})

export const EmbedResponseSchema = v.looseObject({
  model: v.string(),
  embeddings: v.array(v.array(v.number())),
  total_duration: count,
  load_duration: count,
  prompt_eval_count: count,
} satisfies Shape<EmbedResponse>)

export const ShowResponseSchema = v.looseObject({
  license: v.string(),
  modelfile: v.string(),
  parameters: v.string(),
  template: v.string(),
  system: v.string(),
  details: v.looseObject(details),
  messages: v.array(v.unknown()),
  modified_at: date,
  model_info: v.record(v.string(), v.unknown()),
  capabilities: v.array(v.picklist(['completion', 'tools', 'insert', 'vision', 'embedding', 'thinking'])),
  projector_info: v.optional(v.record(v.string(), v.unknown())),
} satisfies Shape<ShowResponse>)

const modelFields = {
  name: v.string(),
  modified_at: date,
  model: v.string(),
  size: count,
  digest: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  details: v.looseObject(details),
  expires_at: date,
  size_vram: count,
} satisfies Shape<ModelResponse>

/** `/api/ps`: every field of the client's `ModelResponse`. */
export const PsResponseSchema = v.looseObject({
  models: v.array(v.looseObject(modelFields)),
} satisfies Shape<ListResponse>)

/** `/api/tags`: the same type, but Ollama's own list leaves out what only a loaded model has. */
const { expires_at: _expires, size_vram: _vram, ...listed } = modelFields
export const TagsResponseSchema = v.looseObject({ models: v.array(v.looseObject(listed)) })

/** Parses `value` with `schema`, throwing the issues (with their paths) when it does not fit. */
export function parsed<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value)
  if (result.success) return result.output
  const issues = result.issues.map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`)
  throw new Error(`answer does not fit the ollama client's type:\n  ${issues.join('\n  ')}`)
}
