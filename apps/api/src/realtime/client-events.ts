/**
 * The client events of OpenAI's GA Realtime protocol that svc takes (openai 6.x
 * `RealtimeClientEvent`), as valibot schemas. Unknown fields are kept out of the way (loose objects);
 * an event svc does not know gets an `error` event, not a closed socket.
 */
import { SvcError } from '@svc/core'
import * as v from 'valibot'

const AudioFormatSchema = v.looseObject({
  type: v.optional(v.string()),
  rate: v.optional(v.number()),
})

/** `audio.input.transcription`: which stt model, and its hints. `null` turns input transcripts off. */
export const TranscriptionConfigSchema = v.nullable(
  v.looseObject({
    model: v.optional(v.pipe(v.string(), v.minLength(1))),
    language: v.optional(v.string()),
    prompt: v.optional(v.string()),
  }),
)

/** `audio.input.turn_detection`: `server_vad` (semantic_vad is read as server_vad), or `null` (commit by hand). */
export const TurnDetectionSchema = v.nullable(
  v.looseObject({
    type: v.picklist(['server_vad', 'semantic_vad']),
    threshold: v.optional(v.pipe(v.number(), v.gtValue(0), v.ltValue(1))),
    prefix_padding_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000))),
    silence_duration_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000))),
    create_response: v.optional(v.boolean()),
    interrupt_response: v.optional(v.boolean()),
  }),
)

const AudioInputSchema = v.looseObject({
  format: v.optional(AudioFormatSchema),
  transcription: v.optional(TranscriptionConfigSchema),
  turn_detection: v.optional(TurnDetectionSchema),
})

const AudioOutputSchema = v.looseObject({
  format: v.optional(AudioFormatSchema),
  voice: v.optional(v.pipe(v.string(), v.minLength(1))),
  speed: v.optional(v.pipe(v.number(), v.minValue(0.25), v.maxValue(4))),
})

const ModalitiesSchema = v.pipe(v.array(v.picklist(['text', 'audio'])), v.minLength(1))
const MaxTokensSchema = v.union([v.pipe(v.number(), v.integer(), v.minValue(1)), v.literal('inf')])

/** The `session` of `session.update`. */
export const SessionPatchSchema = v.looseObject({
  type: v.optional(v.picklist(['realtime', 'transcription'])),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  instructions: v.optional(v.string()),
  output_modalities: v.optional(ModalitiesSchema),
  max_output_tokens: v.optional(MaxTokensSchema),
  audio: v.optional(
    v.looseObject({ input: v.optional(AudioInputSchema), output: v.optional(AudioOutputSchema) }),
  ),
})
export type SessionPatch = v.InferOutput<typeof SessionPatchSchema>

const ContentPartSchema = v.looseObject({
  type: v.picklist(['input_text', 'input_audio', 'text', 'output_text', 'output_audio', 'audio']),
  text: v.optional(v.nullable(v.string())),
  transcript: v.optional(v.nullable(v.string())),
  audio: v.optional(v.nullable(v.string())),
})

/** The `item` of `conversation.item.create`: messages only (svc has no tools here). */
export const MessageItemSchema = v.looseObject({
  id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  type: v.literal('message'),
  role: v.picklist(['system', 'user', 'assistant']),
  content: v.pipe(v.array(ContentPartSchema), v.maxLength(64)),
})
export type MessageItem = v.InferOutput<typeof MessageItemSchema>

const ResponseParamsSchema = v.looseObject({
  instructions: v.optional(v.string()),
  output_modalities: v.optional(ModalitiesSchema),
  max_output_tokens: v.optional(MaxTokensSchema),
  conversation: v.optional(v.union([v.literal('auto'), v.literal('none'), v.string()])),
})

const EventId = { event_id: v.optional(v.string()) }

/** Every client event svc answers. */
export const ClientEventSchema = v.variant('type', [
  v.looseObject({ type: v.literal('session.update'), ...EventId, session: SessionPatchSchema }),
  v.looseObject({ type: v.literal('input_audio_buffer.append'), ...EventId, audio: v.string() }),
  v.looseObject({ type: v.literal('input_audio_buffer.commit'), ...EventId }),
  v.looseObject({ type: v.literal('input_audio_buffer.clear'), ...EventId }),
  v.looseObject({ type: v.literal('output_audio_buffer.clear'), ...EventId }),
  v.looseObject({
    type: v.literal('conversation.item.create'),
    ...EventId,
    previous_item_id: v.optional(v.nullable(v.string())),
    item: MessageItemSchema,
  }),
  v.looseObject({ type: v.literal('conversation.item.delete'), ...EventId, item_id: v.string() }),
  v.looseObject({
    type: v.literal('response.create'),
    ...EventId,
    response: v.optional(ResponseParamsSchema),
  }),
  v.looseObject({ type: v.literal('response.cancel'), ...EventId, response_id: v.optional(v.string()) }),
])
export type ClientEvent = v.InferOutput<typeof ClientEventSchema>
export type ResponseParams = v.InferOutput<typeof ResponseParamsSchema>

/** The types of {@link ClientEventSchema}, for the message naming an unknown one. */
export const CLIENT_EVENT_TYPES = ClientEventSchema.options.map((o) => o.entries.type.literal)

/**
 * One client message read: the event, or the 400 `request.invalid` to send back as an `error` event
 * (not JSON, an unknown `type`, a field that does not validate: `param` names it). `eventId` is the
 * client's `event_id`, for the error's `event_id`.
 */
export function parseClientEvent(data: string): { event?: ClientEvent; eventId?: string; error?: SvcError } {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    return { error: new SvcError('request.invalid', 'a client event is one JSON object per message') }
  }
  const raw = (json && typeof json === 'object' ? json : {}) as { event_id?: unknown; type?: unknown }
  const eventId = typeof raw.event_id === 'string' ? raw.event_id : undefined
  const type = raw.type
  if (typeof type !== 'string' || !(CLIENT_EVENT_TYPES as string[]).includes(type)) {
    const message = `unknown client event type ${JSON.stringify(type)}; svc takes ${CLIENT_EVENT_TYPES.join(', ')}`
    return {
      ...(eventId ? { eventId } : {}),
      error: new SvcError('request.invalid', message, { param: 'type' }),
    }
  }
  const parsed = v.safeParse(ClientEventSchema, json)
  if (parsed.success) return { event: parsed.output, ...(eventId ? { eventId } : {}) }
  const param = v.getDotPath(parsed.issues[0]) ?? null
  const message = `${param ? `${param}: ` : ''}${parsed.issues[0].message}`
  return { ...(eventId ? { eventId } : {}), error: new SvcError('request.invalid', message, { param }) }
}
