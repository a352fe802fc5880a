/**
 * The shapes of the activity view (`GET /api/activity`, `activity.*` events on `/api/events`): one
 * request as a person reads it, in flight or finished, and the state of body capture.
 */

/** Who sent a request: the token's id and label (never its secret) and/or the person it acted for. */
export interface ActivityCaller {
  token_id: string | null
  /** The token's label as tokens.toml has it now (null for a person, or a token since revoked). */
  label: string | null
  /** The proxy's `X-Forwarded-Email`, or the person a token named with `X-Svc-User`. */
  identity: string | null
}

/** The OpenAI (or other) surface a request came in on. */
export type ActivitySurface =
  | 'chat'
  | 'completions'
  | 'responses'
  | 'messages'
  | 'embeddings'
  | 'rerank'
  | 'transcription'
  | 'speech'
  | 'images'
  | 'ollama'
  | 'other'

/**
 * One request. Times are milliseconds; a figure svc does not know (not reached yet, or the upstream
 * did not say) is null.
 */
export interface ActivityEntry {
  /** The request id (`X-Request-Id`); '' for a request refused before it was sent anywhere. */
  id: string
  /** Epoch ms it arrived. */
  at: number
  /** In flight now. */
  live: boolean
  /** Null with auth off (or usage counting off): nobody to name. */
  caller: ActivityCaller | null
  surface: ActivitySurface
  /** The path it came in on (`/v1/chat/completions`, `/api/chat`). */
  route: string
  /** The slot it went to, or `upstream:<name>` for a hosted service; null when refused before that. */
  slot: string | null
  /** The model that answered (the lease's), else the name the request asked for. */
  model: string | null
  /** HTTP status answered (499: the client went away first); null while in flight. */
  status: number | null
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error' | null
  /** Waiting for the slot (its queue, a lease), svc's reading of the body included; load wait excluded. */
  queue_ms: number | null
  /** Waiting for the slot's model to load (the part of the wait after which the slot became ready). */
  load_ms: number | null
  /** Upstream request sent → its first byte (the engine's time to first token, for a stream). */
  ttft_ms: number | null
  /** Arrival → answer finished (so far, while in flight). */
  duration_ms: number
  tokens_in: number | null
  tokens_out: number | null
  /** Output tokens per second of generation (the engine's own timing when it reports one). */
  tokens_per_s: number | null
  /** Bodies kept by capture (`GET /api/activity/:id` shows them to an admin). */
  captured: boolean
}

/** Body capture: off unless an admin turns it on, for a while. */
export interface CaptureState {
  on: boolean
  /** Epoch ms it turns itself off; null when off. */
  until: number | null
  /** The cap on each body kept (bytes); longer bodies are cut and marked `truncated`. */
  max_bytes: number
  /** Captured requests kept now. */
  kept: number
}

/** `GET /api/activity`. */
export interface ActivityAnswer {
  /** Requests in flight now, newest first. */
  inflight: ActivityEntry[]
  /** Finished requests, newest first (the last few hundred at most). */
  recent: ActivityEntry[]
  capture: CaptureState
}

/** One side of a captured exchange, secrets redacted. */
export interface CapturedBody {
  headers: Record<string, string>
  /** The body as text (JSON key fields redacted), cut at `max_bytes`; null when not captured (an upload). */
  body: string | null
  truncated: boolean
}

/** What capture kept of one request. */
export interface CapturedExchange {
  request: CapturedBody
  response: CapturedBody & { status: number | null }
}
