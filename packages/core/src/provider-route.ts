/**
 * The request side of the provider contract: what the dispatcher needs of a slot's provider to send
 * it an OpenAI request. Defined once, here (the dispatcher imports only core); `@svc/providers`'
 * `Provider` extends it with how to start, probe and place the upstream.
 */
import type { SvcError } from './errors'
import type { ModelEntry } from './models'

/**
 * The endpoints a provider may serve: OpenAI's, plus the Responses API, Anthropic Messages and the
 * token counts llama-server answers beside them (`*-input-tokens`, `messages-count-tokens`).
 */
export const ENDPOINTS = [
  'chat',
  'completions',
  'embeddings',
  'rerank',
  'transcriptions',
  'translations',
  'speech',
  'images',
  'responses',
  'chat-input-tokens',
  'responses-input-tokens',
  'messages',
  'messages-count-tokens',
] as const
export type Endpoint = (typeof ENDPOINTS)[number]

/** The part of an OpenAI request a translator gets (already validated JSON, or the raw request). */
export interface TranslateRequest {
  endpoint: Endpoint
  /**
   * The parsed JSON body; for an upload a translator may take (`transcriptions` with `stream`), its
   * form fields: text as strings, files as `File`.
   */
  body: Record<string, unknown>
  /**
   * The body exactly as the client sent it: JSON.parse loses integers above 2^53 (image seeds go up
   * to 2^64 − 1), so a translator that needs them exact reads them from here.
   */
  rawBody?: string
  /**
   * A multipart upload read whole, for the endpoints whose translator needs its files (the image
   * provider's `/v1/images/edits` and `/variations`); `body` is then empty. Absent for JSON bodies.
   */
  form?: FormData
  /** The `/v1` path the client called (`/v1/images/edits`), for a translator that serves several. */
  path?: string
  /** Base URL of the running upstream. */
  base: URL
  /** Model ref the slot holds. */
  model: ModelEntry
  /** Aborts when the client goes away; the translator must stop upstream work then. */
  signal: AbortSignal
}

/**
 * For endpoints the upstream does not speak natively (OpenAI images → ComfyUI workflow). Returns the
 * response to send; throws `SvcError` for request errors (400) and upstream failures (502/504).
 */
export interface Translator {
  readonly endpoints: readonly Endpoint[]
  /**
   * Whether this request needs the translator; when false the dispatcher proxies it to the upstream
   * as usual. Absent = always (for its endpoints).
   */
  appliesTo?(request: Pick<TranslateRequest, 'endpoint' | 'model' | 'body'>): boolean | Promise<boolean>
  handle(request: TranslateRequest): Promise<Response>
}

/** The answer to send instead of an upstream reply that only looked like a success. */
export interface NormalisedReply {
  status: number
  body: unknown
  headers: Record<string, string>
}

export interface ProviderRoute {
  /** OpenAI endpoints it serves. */
  readonly endpoints: readonly Endpoint[]
  /** The upstream path the dispatcher proxies `endpoint` to. */
  requestPath(endpoint: Endpoint): string
  translate?: Translator
  /**
   * The JSON body to send instead, when the upstream would ignore fields it has another name for
   * (llama-server: Responses `text.format`, a `tool_choice` naming one tool); undefined to send the
   * client's bytes as they came. Called before the lease is taken; throws `SvcError` (400) on a
   * body it cannot carry.
   */
  prepareBody?(endpoint: Endpoint, body: Record<string, unknown>): Record<string, unknown> | undefined
  /**
   * Form fields to add in front of a multipart upload for `endpoint`, when the upstream tells two
   * OpenAI endpoints apart by a field (whisper-server translates with `translate=true`). They come
   * first, so they win over a client's field of the same name.
   */
  multipartFields?(endpoint: Endpoint): Readonly<Record<string, string>> | undefined
  /** The `model` field to send upstream, when the upstream cares (FLM switches models on it). */
  upstreamModel?(ctx: { model: ModelEntry }): string | undefined
  /**
   * For upstreams whose errors look like successes (FastFlowLM: HTTP 200 with `{"error": …}` or
   * `null`): judges a whole non-streaming JSON reply (`body` parsed; `null` when empty) and returns
   * the error to send instead, or undefined to pass it on. Setting it makes the dispatcher read such
   * replies whole before answering; SSE streams pass through untouched.
   */
  normaliseBody?(status: number, body: unknown): NormalisedReply | undefined
  /**
   * The engine's own reading of an error reply (status ≥ 400; `body` parsed when it is JSON, else its
   * text): the error to answer instead of the generic one (llama-server's `exceed_context_size_error`
   * → `context.too_long`, whisper-server's failed conversion → `audio.unreadable`), or undefined for
   * the generic reading. Asked only on the error path: a success pays nothing for it.
   */
  normaliseError?(status: number, body: unknown): SvcError | undefined
}
