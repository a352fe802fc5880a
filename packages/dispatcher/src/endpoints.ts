/**
 * The inference endpoints svc dispatches, by path (OpenAI's, the Responses API, Anthropic Messages). `endpoint` is the provider-contract name the
 * upstream path is looked up by; `schema` validates JSON bodies; `pinnedSlot` pins it to a slot.
 */
import type { Endpoint } from '@svc/core'
import type * as v from 'valibot'
import { acceptsChat } from './quick-accept'
import {
  ChatCompletionSchema,
  CompletionSchema,
  EmbeddingSchema,
  ImageGenerationSchema,
  RerankSchema,
  SpeechSchema,
} from './schemas'
import {
  MessagesCountTokensSchema,
  MessagesSchema,
  ResponsesInputTokensSchema,
  ResponsesSchema,
} from './surface-schemas'

/** The provider contract's endpoint names (core's `Endpoint`). */
export type EndpointName = Endpoint

export interface EndpointSpec {
  endpoint: EndpointName
  /**
   * `json`: read whole and validated; `multipart`: scanned to `model`, the rest streamed on;
   * `form`: a multipart upload read whole and parsed, for a translator that needs its files.
   */
  body: 'json' | 'multipart' | 'form'
  schema?: v.GenericSchema
  /** A cheaper check that accepts the common body without running `schema` (quick-accept.ts). */
  accepts?: (data: Record<string, unknown>) => boolean
  /** `/v1/images/*` always goes to this slot (docs/api.md#the-openai-api). */
  pinnedSlot?: string
  /**
   * For hosted upstreams (OpenAI-compatible): the path after their base URL. Absent: the OpenAI API
   * has no such path (Anthropic Messages), so a hosted ref is refused with 400 `request.invalid`.
   */
  hostedPath?: string
}

/**
 * The inference routes, by path: what `/v1/*` path is which endpoint and how its body is read. (The
 * endpoint *names* are the provider contract's; this table only maps paths to them.)
 */
export const INFERENCE_ROUTES: Record<string, EndpointSpec> = {
  '/v1/chat/completions': {
    endpoint: 'chat',
    body: 'json',
    schema: ChatCompletionSchema,
    accepts: acceptsChat,
    hostedPath: '/chat/completions',
  },
  // The Responses API and the token counts llama-server answers beside chat.
  '/v1/responses': {
    endpoint: 'responses',
    body: 'json',
    schema: ResponsesSchema,
    hostedPath: '/responses',
  },
  '/v1/responses/input_tokens': {
    endpoint: 'responses-input-tokens',
    body: 'json',
    schema: ResponsesInputTokensSchema,
    hostedPath: '/responses/input_tokens',
  },
  // OpenAI has no such path, so hosted upstreams are refused.
  '/v1/chat/completions/input_tokens': {
    endpoint: 'chat-input-tokens',
    body: 'json',
    schema: ChatCompletionSchema,
  },
  // Anthropic Messages: hosted upstreams speak the OpenAI API, so they are refused here.
  '/v1/messages': { endpoint: 'messages', body: 'json', schema: MessagesSchema },
  '/v1/messages/count_tokens': {
    endpoint: 'messages-count-tokens',
    body: 'json',
    schema: MessagesCountTokensSchema,
  },
  '/v1/completions': {
    endpoint: 'completions',
    body: 'json',
    schema: CompletionSchema,
    hostedPath: '/completions',
  },
  '/v1/embeddings': {
    endpoint: 'embeddings',
    body: 'json',
    schema: EmbeddingSchema,
    hostedPath: '/embeddings',
  },
  '/v1/rerankings': { endpoint: 'rerank', body: 'json', schema: RerankSchema, hostedPath: '/rerank' },
  // The name Jina, Cohere-style clients and llama-server use; same endpoint.
  '/v1/rerank': { endpoint: 'rerank', body: 'json', schema: RerankSchema, hostedPath: '/rerank' },
  '/v1/audio/transcriptions': {
    endpoint: 'transcriptions',
    body: 'multipart',
    hostedPath: '/audio/transcriptions',
  },
  // Speech in any language to English text; the same formats as transcriptions.
  '/v1/audio/translations': {
    endpoint: 'translations',
    body: 'multipart',
    hostedPath: '/audio/translations',
  },
  '/v1/audio/speech': { endpoint: 'speech', body: 'json', schema: SpeechSchema, hostedPath: '/audio/speech' },
  '/v1/images/generations': {
    endpoint: 'images',
    body: 'json',
    schema: ImageGenerationSchema,
    pinnedSlot: 'img',
    hostedPath: '/images/generations',
  },
  // Image-to-image and inpainting (and variations: image-to-image without a prompt), translated
  // into ComfyUI edit graphs by the image provider; its translator checks every field and file.
  '/v1/images/edits': { endpoint: 'images', body: 'form', pinnedSlot: 'img' },
  '/v1/images/variations': { endpoint: 'images', body: 'form', pinnedSlot: 'img' },
}

export function endpointFor(path: string): EndpointSpec | undefined {
  return INFERENCE_ROUTES[path]
}

/** A request's path without its query: the URL itself when it has none (no copy per request). */
export function requestPath(url: string | undefined): string {
  if (url === undefined) return '/'
  const query = url.indexOf('?')
  return query < 0 ? url : url.slice(0, query)
}
