/**
 * The Ollama request bodies svc reads (loose: fields svc does not use are accepted and ignored, as
 * Ollama does). A violation is 400 with Ollama's error body.
 */
import * as v from 'valibot'

const model = v.pipe(
  v.string('model must be a string'),
  v.minLength(1, 'model is required'),
  v.maxLength(256),
)
const options = v.optional(v.nullable(v.record(v.string(), v.unknown(), 'options must be an object')))
const images = v.optional(v.nullable(v.array(v.string('images must be base64 strings'))))
const stream = v.optional(v.nullable(v.boolean('stream must be a boolean')))
// A string is a reasoning effort; levels beyond today's pass to the engine (issue 38).
const think = v.optional(
  v.nullable(
    v.union([v.boolean(), v.pipe(v.string(), v.maxLength(64))], 'think must be a boolean or a string'),
  ),
)

const ToolCallSchema = v.looseObject({
  id: v.optional(v.string()),
  function: v.looseObject({
    name: v.string('tool_calls[].function.name must be a string'),
    arguments: v.optional(v.unknown()),
  }),
})

export const OllamaMessageSchema = v.looseObject({
  role: v.pipe(v.string('role must be a string'), v.minLength(1)),
  content: v.optional(v.nullable(v.string('content must be a string'))),
  images,
  tool_calls: v.optional(v.nullable(v.array(ToolCallSchema))),
  tool_name: v.optional(v.string()),
  tool_call_id: v.optional(v.string()),
})
export type OllamaMessage = v.InferOutput<typeof OllamaMessageSchema>

export const OllamaChatSchema = v.looseObject({
  model,
  messages: v.optional(v.array(OllamaMessageSchema, 'messages must be an array of messages'), []),
  tools: v.optional(v.nullable(v.array(v.looseObject({ type: v.string() })))),
  format: v.optional(v.unknown()),
  options,
  stream,
  think,
  keep_alive: v.optional(v.unknown()),
})
export type OllamaChat = v.InferOutput<typeof OllamaChatSchema>

export const OllamaGenerateSchema = v.looseObject({
  model,
  prompt: v.optional(v.string('prompt must be a string'), ''),
  suffix: v.optional(v.string()),
  system: v.optional(v.string()),
  images,
  format: v.optional(v.unknown()),
  options,
  stream,
  raw: v.optional(v.boolean()),
  think,
  keep_alive: v.optional(v.unknown()),
})
export type OllamaGenerate = v.InferOutput<typeof OllamaGenerateSchema>

export const OllamaEmbedSchema = v.looseObject({
  model,
  input: v.union([v.string(), v.array(v.string())], 'input must be a string or an array of strings'),
  dimensions: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  truncate: v.optional(v.boolean()),
  options,
  keep_alive: v.optional(v.unknown()),
})

export const OllamaEmbeddingsSchema = v.looseObject({
  model,
  prompt: v.optional(v.string('prompt must be a string'), ''),
  options,
  keep_alive: v.optional(v.unknown()),
})

/** `model` is Ollama's name; `name` is the older spelling clients still send. */
export const OllamaModelRequestSchema = v.looseObject({
  model: v.optional(v.string()),
  name: v.optional(v.string()),
  stream,
  insecure: v.optional(v.boolean()),
})
