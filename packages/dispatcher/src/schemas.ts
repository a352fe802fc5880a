/**
 * Request schemas at the edge, one per endpoint. Objects are loose (unknown fields pass through to
 * the upstream: llama.cpp samplers, `chat_template_kwargs`, …); only what svc relies on or what
 * would surely fail upstream is checked. A violation is 400 `request.invalid` with `param`.
 */
import * as v from 'valibot'

/** The limits the chat schema checks that `quick-accept.ts` checks too. */
export const MODEL_MAX_CHARS = 256
export const TEMPERATURE_MAX = 2
export const CHOICES_MAX = 128

/** `model` as every surface's schema takes it (schemas.ts, surface-schemas.ts). */
export const modelField = v.pipe(
  v.string('model must be a string'),
  v.minLength(1, 'model must not be empty'),
  v.maxLength(MODEL_MAX_CHARS),
)
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max))
/** `temperature` as every surface's schema takes it: absent, null, or 0 to 2. */
export const temperatureField = v.optional(
  v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(TEMPERATURE_MAX))),
)
const stop = v.optional(v.nullable(v.union([v.string(), v.array(v.string())])))
const tokens = v.array(v.pipe(v.number(), v.integer()))

const MessageSchema = v.looseObject({
  role: v.pipe(v.string('role must be a string'), v.minLength(1)),
  content: v.optional(v.nullable(v.union([v.string(), v.array(v.looseObject({}))]))),
})

export const ChatCompletionSchema = v.looseObject({
  model: modelField,
  messages: v.pipe(
    v.array(MessageSchema, 'messages must be an array of messages'),
    v.minLength(1, 'messages must not be empty'),
  ),
  stream: v.optional(v.nullable(v.boolean('stream must be a boolean'))),
  max_tokens: v.optional(v.nullable(int(1))),
  max_completion_tokens: v.optional(v.nullable(int(1))),
  temperature: temperatureField,
  top_p: v.optional(v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(1)))),
  n: v.optional(v.nullable(int(1, CHOICES_MAX))),
  stop,
  tools: v.optional(v.nullable(v.array(v.looseObject({ type: v.string() })))),
})

export const CompletionSchema = v.looseObject({
  model: modelField,
  prompt: v.union(
    [v.string(), v.array(v.string()), tokens, v.array(tokens)],
    'prompt must be a string, an array of strings or token ids',
  ),
  stream: v.optional(v.nullable(v.boolean('stream must be a boolean'))),
  max_tokens: v.optional(v.nullable(int(1))),
  temperature: temperatureField,
  stop,
})

export const EmbeddingSchema = v.looseObject({
  model: modelField,
  input: v.union(
    [
      v.pipe(v.string(), v.minLength(1, 'input must not be empty')),
      v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1), v.maxLength(2048)),
      v.pipe(tokens, v.minLength(1)),
      v.pipe(v.array(tokens), v.minLength(1), v.maxLength(2048)),
    ],
    'input must be a non-empty string, array of strings, or token ids',
  ),
  encoding_format: v.optional(v.picklist(['float', 'base64'], 'encoding_format must be "float" or "base64"')),
  dimensions: v.optional(int(1)),
})

export const RerankSchema = v.looseObject({
  model: modelField,
  query: v.pipe(v.string('query must be a string'), v.minLength(1, 'query must not be empty')),
  documents: v.pipe(
    v.array(v.string('documents must be strings'), 'documents must be an array of strings'),
    v.minLength(1, 'documents must not be empty'),
  ),
  top_n: v.optional(v.nullable(int(1))),
})

export const SpeechSchema = v.looseObject({
  model: modelField,
  input: v.pipe(
    v.string('input must be a string'),
    v.minLength(1, 'input must not be empty'),
    v.maxLength(4096),
  ),
  voice: v.union(
    [v.pipe(v.string(), v.minLength(1)), v.looseObject({ id: v.string() })],
    'voice must be a voice name or {id}',
  ),
  response_format: v.optional(
    v.picklist(
      ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'],
      'response_format must be one of mp3, opus, aac, flac, wav, pcm',
    ),
  ),
  speed: v.optional(v.pipe(v.number('speed must be a number'), v.minValue(0.25), v.maxValue(4))),
})

/** Images: the image provider's translator validates the rest (sizes, seeds); here only routing. */
export const ImageGenerationSchema = v.looseObject({
  model: v.optional(modelField),
  prompt: v.pipe(v.string('prompt must be a string'), v.minLength(1, 'prompt must not be empty')),
})
