import { readErrorBody, readSse } from '@svc/core'

/** One piece of a streamed chat completion. */
export interface ChatDelta {
  content?: string
  /** `reasoning_content` (llama.cpp, DeepSeek) or `reasoning` (OpenRouter, vLLM). */
  reasoning?: string
  finishReason?: string
  /** The token counts the stream ended with (`stream_options.include_usage`). */
  usage?: { prompt_tokens?: number; completion_tokens?: number }
  /** llama.cpp's own figures of the answer (its last chunk): generation speed, prompt time. */
  timings?: { predicted_per_second?: number; predicted_n?: number; prompt_ms?: number }
}

export interface StreamChatOptions {
  /** e.g. `/v1/chat/completions` (same origin) or a full URL. */
  url: string
  /** The request body; `stream: true` is set, and `stream_options.include_usage` unless given. */
  body: Record<string, unknown>
  headers?: Record<string, string>
  /** Aborting it ends the request; svc then stops the upstream's generation. */
  signal: AbortSignal
}

/** An error the server answered with (svc's error body), or a broken stream. */
export class ChatStreamError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
  ) {
    super(message)
  }
}

/**
 * POSTs a chat completion with `stream: true` and yields its deltas as they arrive (and the usage and
 * timings chunks, as deltas without text). Throws
 * `ChatStreamError` for an error answer or an `{"error": …}` event in the stream; an abort ends with
 * the signal's `AbortError`.
 */
export async function* streamChat(options: StreamChatOptions): AsyncGenerator<ChatDelta> {
  const res = await fetch(options.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...options.headers },
    // include_usage: upstreams that report no llama.cpp `timings` still end with token counts, which
    // svc reads for the slot's tokens/s (the extra `choices: []` chunk is skipped below).
    body: JSON.stringify({ stream_options: { include_usage: true }, ...options.body, stream: true }),
    signal: options.signal,
  })
  if (!res.ok || !res.body) throw await errorOf(res)
  for await (const message of readSse(res.body)) {
    if (message.data === '[DONE]') return
    let chunk: {
      error?: { message?: string; code?: string }
      choices?: { delta?: Record<string, unknown>; finish_reason?: string | null }[]
      usage?: ChatDelta['usage'] | null
      timings?: ChatDelta['timings'] | null
    }
    try {
      chunk = JSON.parse(message.data)
    } catch {
      continue // not JSON: nothing a chat view can show
    }
    if (chunk.error) {
      const read = readErrorBody(chunk, 'the stream failed')
      throw new ChatStreamError(read.message, null, read.code)
    }
    const out: ChatDelta = {}
    // The usage chunk has `choices: []`; llama.cpp's last chunk carries `timings` beside its choice.
    if (chunk.usage) out.usage = chunk.usage
    if (chunk.timings) out.timings = chunk.timings
    const choice = chunk.choices?.[0]
    if (!choice) {
      if (out.usage || out.timings) yield out
      continue
    }
    const delta = choice.delta ?? {}
    if (typeof delta.content === 'string' && delta.content) out.content = delta.content
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (typeof reasoning === 'string' && reasoning) out.reasoning = reasoning
    if (choice.finish_reason) out.finishReason = choice.finish_reason
    if (out.content || out.reasoning || out.finishReason || out.usage || out.timings) yield out
  }
}

async function errorOf(res: Response): Promise<ChatStreamError> {
  const read = readErrorBody(await res.text().catch(() => ''), `HTTP ${res.status}`)
  return new ChatStreamError(read.message, res.status, read.code)
}
