import * as v from 'valibot'
import { ID_PATTERN } from '../store/ids'
import { MAX_JSON_BODY_BYTES } from './limits'

const text = (max: number) => v.pipe(v.string(), v.maxLength(max, `at most ${max} characters`))
const modelId = v.pipe(v.string(), v.trim(), v.minLength(1, 'choose a model'), v.maxLength(256))
/**
 * A message's text. Its real bound is `MAX_MESSAGE_BYTES` of UTF-8, checked by the route (a 413
 * `request.too_large`, as the page checks before sending); this one only caps what is parsed.
 */
const message = text(MAX_JSON_BODY_BYTES)
const fileId = v.pipe(v.string(), v.regex(ID_PATTERN, 'not a file id'))

/** `POST api/conversations`. */
export const CreateConversationSchema = v.object({
  title: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  model: v.optional(v.nullable(modelId)),
  system: v.optional(text(20_000)),
})

/** `PATCH api/conversations/:id`: rename, change the model or the system prompt. */
export const PatchConversationSchema = v.object({
  title: v.optional(
    v.pipe(v.string(), v.trim(), v.minLength(1, 'a title cannot be empty'), v.maxLength(200)),
  ),
  model: v.optional(v.nullable(modelId)),
  system: v.optional(text(20_000)),
})

/** `POST api/conversations/:id/messages`: a new user turn, answered by a stream. */
export const SendSchema = v.object({
  content: message,
  model: modelId,
  attachments: v.optional(v.pipe(v.array(fileId), v.maxLength(8, 'at most 8 attachments')), []),
})

/** `POST api/conversations/:id/messages/:messageId/edit`: replace an earlier user turn and continue. */
export const EditSchema = v.object({ content: message, model: modelId })

/** `POST api/models/load`: load a model the picker lists (nothing else: an unknown key is a 400). */
export const LoadSchema = v.strictObject({ model: modelId })

/** `POST api/conversations/:id/regenerate`: answer the last user turn again. */
export const RegenerateSchema = v.object({ model: modelId })

/** `POST api/conversations/:id/images`: the image-generation mode. */
export const ImageSchema = v.object({
  prompt: v.pipe(v.string(), v.trim(), v.minLength(1, 'describe the image'), v.maxLength(4000)),
  size: v.optional(v.pipe(v.string(), v.regex(/^\d{2,4}x\d{2,4}$/, 'WIDTHxHEIGHT, e.g. 512x512'))),
  n: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)), 1),
  model: v.optional(modelId),
})

/** `POST api/audio/speech`: read a text aloud. */
export const SpeechSchema = v.object({
  input: v.pipe(v.string(), v.minLength(1, 'nothing to read'), v.maxLength(4096)),
  voice: v.optional(v.pipe(v.string(), v.maxLength(64)), 'alloy'),
  model: v.optional(modelId, 'tts'),
})
