/**
 * Request schemas of the other surfaces on the same slots: the OpenAI Responses API and Anthropic
 * Messages (and their token counts). Loose like the chat schemas (schemas.ts): unknown fields, beta
 * values and new roles pass through to the upstream untouched (`thinking: {type: "adaptive"}`,
 * `output_config`, `context_management`); only what svc relies on (the routing field, the stream
 * flag, sizes and caps, the fields it translates) or what the spec forbids is checked. What no slot
 * does is refused here, naming the field: svc and llama-server keep no responses, so `store: true`,
 * `previous_response_id` and `conversation` are 400 `request.invalid` rather than silently ignored.
 */
import * as v from 'valibot'
import { modelField as model, temperatureField as temperature } from './schemas'

const int = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min))
const stream = v.optional(v.nullable(v.boolean('stream must be a boolean')))
const STATELESS = 'svc keeps no responses: send the whole conversation in input'
/** A field that must be absent (or null): what stored responses would need. */
const unsupported = (message: string) => v.optional(v.nullable(v.custom(() => false, message)))

const ResponsesBody = {
  model,
  input: v.union(
    [v.string(), v.array(v.looseObject({}))],
    'input must be a string or an array of input items',
  ),
  instructions: v.optional(v.nullable(v.string('instructions must be a string'))),
  stream,
  max_output_tokens: v.optional(v.nullable(int(1))),
  temperature,
  tools: v.optional(v.nullable(v.array(v.looseObject({ type: v.string() })))),
  text: v.optional(v.nullable(v.looseObject({ format: v.optional(v.looseObject({ type: v.string() })) }))),
  store: v.optional(v.nullable(v.literal(false, `${STATELESS} (leave store out or false)`))),
  previous_response_id: unsupported(STATELESS),
  conversation: unsupported(STATELESS),
  background: v.optional(v.nullable(v.literal(false, 'background responses are not supported'))),
}

/** `POST /v1/responses`. */
export const ResponsesSchema = v.looseObject(ResponsesBody)

/** `POST /v1/responses/input_tokens`: the same body; svc needs `model` to route it. */
export const ResponsesInputTokensSchema = v.looseObject(ResponsesBody)

/**
 * A role is any string: Anthropic adds roles behind beta headers (`{"role":"system"}` inside
 * `messages`, `mid-conversation-system-*`), and the engine judges them, not svc.
 */
const AnthropicMessage = v.looseObject({
  role: v.pipe(v.string('role must be a string'), v.minLength(1, 'role must not be empty')),
  content: v.union(
    [v.string(), v.array(v.looseObject({ type: v.string() }))],
    'content must be a string or an array of content blocks',
  ),
})

const MessagesBody = {
  model,
  messages: v.pipe(
    v.array(AnthropicMessage, 'messages must be an array of messages'),
    v.minLength(1, 'messages must not be empty'),
  ),
  system: v.optional(v.nullable(v.union([v.string(), v.array(v.looseObject({ type: v.string() }))]))),
  tools: v.optional(v.nullable(v.array(v.looseObject({ name: v.string('tools need a name') })))),
}

/** `POST /v1/messages`. `max_tokens` is required by Anthropic; svc, like llama-server, lets it default. */
export const MessagesSchema = v.looseObject({
  ...MessagesBody,
  max_tokens: v.optional(v.nullable(int(1))),
  stream,
  temperature,
})

/** `POST /v1/messages/count_tokens`. */
export const MessagesCountTokensSchema = v.looseObject(MessagesBody)
