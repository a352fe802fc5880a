/** Chat requests to svc's /v1 in tests: through the official client, as one answer, or as a stream. */
import { type ApiProcess, postJson } from '@svc/testing'
import OpenAI from 'openai'
import { call } from './live'

/**
 * The official `openai` client for svc's /v1 (only `baseURL` changed; the key is unused with auth off)
 * with retries off, so a test sees svc's first answer.
 */
export function openaiClient(api: ApiProcess): OpenAI {
  return new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'unused', maxRetries: 0 })
}

/** The fields of a chat request that tests vary; the user's one message defaults to "hi". */
export interface ChatRequest {
  model: string
  content?: string
  max_tokens?: number
  ignore_eos?: boolean
}

/** POSTs a chat (not streamed) to svc's /v1 through `call`: its status, parsed body and headers. */
export function sendChat<T = Record<string, unknown>>(api: ApiProcess, request: ChatRequest) {
  const { content = 'hi', ...fields } = request
  return call<T>(api, '/v1/chat/completions', {
    method: 'POST',
    json: { ...fields, messages: [{ role: 'user', content }] },
  })
}

/**
 * POSTs a chat with `stream: true` to svc's /v1 (`postJson`) and resolves with the response as
 * soon as its headers arrive: the test reads the SSE body itself (or aborts it with `signal`).
 */
export function streamChat(
  api: { url: string },
  request: ChatRequest,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const { content = 'hi', ...fields } = request
  return postJson(
    `${api.url}/v1/chat/completions`,
    { ...fields, stream: true, messages: [{ role: 'user', content }] },
    init,
  )
}

/** A streamed chat held open: the request is in flight upstream until `stop()`. */
export interface HeldStream extends AsyncDisposable {
  /** The first chunk of the SSE body, as text. */
  first: string
  /** Aborts the request (the client goes away) and waits until the body is let go; safe to call twice. */
  stop(): Promise<void>
}

/** Starts a streamed chat (see `streamChat`) and waits for its first chunk before it resolves. */
export async function holdStream(api: { url: string }, request: ChatRequest): Promise<HeldStream> {
  const abort = new AbortController()
  const res = await streamChat(api, request, { signal: abort.signal })
  const reader = res.body!.getReader()
  const first = new TextDecoder().decode((await reader.read()).value)
  const stop = async () => {
    abort.abort()
    await reader.cancel().catch(() => undefined)
  }
  return { first, stop, [Symbol.asyncDispose]: stop }
}
