import { readErrorBody, readSse, SvcError } from '@svc/core'
import type { Logger } from '@svc/core/node'
import type { MessageRepo } from '../store/messages'
import type { Message, MessageStatus } from '../store/types'
import { type Allowance, afterAnswer, allowanceFrom, ON_BEHALF_HEADER } from '../upstream/allowance'
import { apiFailure, postJson, type SvcApi } from '../upstream/svc-api'
import type { OpenAiMessage } from './context'
import type { StopReason } from './generations'

/** What the browser is told while an answer streams (named SSE events). */
export type Emit = (event: 'delta' | 'done', data: unknown) => void

export interface GenerateOptions {
  api: SvcApi
  messages: MessageRepo
  /** The assistant message (status `streaming`) this answer is written into. */
  assistant: Message
  request: { model: string; messages: OpenAiMessage[] }
  /** Aborted by Stop, by the browser going away, or by shutdown (the reason says which). */
  signal: AbortSignal
  emit: Emit
  logger: Logger
  /** How often the partial answer is saved while it streams. Default 250 ms. */
  saveEveryMs?: number
  /** The person asking, sent as `X-Svc-User` so the API counts and limits them too. */
  person?: string
}

/**
 * Streams one answer from the API into the assistant message and to the browser.
 *
 * - Every `delta` event carries the new `content` and/or `reasoning` text (llama.cpp's
 *   `reasoning_content` and the `reasoning` of other servers alike).
 * - The partial answer is saved every `saveEveryMs`, so a killed process leaves what had arrived
 *   (marked `interrupted` at the next start).
 * - Aborting `signal` aborts the API request (the API then stops the model); the message keeps what
 *   arrived and becomes `stopped` (Stop, or the browser went away) or `interrupted` (shutdown).
 * - An API error before or during the stream makes the message `error` with the API's message; the
 *   `done` event then carries its `code` too, so the page can offer the fix (Load, New chat).
 *
 * Never throws; resolves with the final message once it is saved, after emitting `done` with it.
 */
export async function generate(options: GenerateOptions): Promise<Message> {
  const { messages, assistant, signal } = options
  const saveEvery = options.saveEveryMs ?? 250
  let content = ''
  let reasoning = ''
  let lastSave = Date.now()
  let status: Exclude<MessageStatus, 'streaming'> = 'complete'
  let error: string | null = null
  /** svc's error code when the API refused (`model.not_loaded`, `context.too_long`…): the page's fix. */
  let code: string | null = null
  let allowance: Allowance | null = null
  let used = 0
  try {
    const headers = {
      accept: 'text/event-stream',
      ...(options.person ? { [ON_BEHALF_HEADER]: options.person } : {}),
    }
    const res = await options.api.call(
      '/v1/chat/completions',
      postJson({ ...options.request, stream: true }, signal, headers),
    )
    allowance = allowanceFrom(res.headers)
    if (!res.ok || !res.body) throw await apiFailure(res, options.api.hasToken)
    // keepCutOff: a last chunk the API sent without its blank line is still part of the answer.
    for await (const event of readSse(res.body, { keepCutOff: true })) {
      if (event.data === '[DONE]') break
      const chunk = parseChunk(event.data)
      if (chunk.error) throw new Error(chunk.error)
      if (chunk.used) used = chunk.used
      if (!chunk.content && !chunk.reasoning) continue
      content += chunk.content
      reasoning += chunk.reasoning
      options.emit('delta', {
        ...(chunk.content ? { content: chunk.content } : {}),
        ...(chunk.reasoning ? { reasoning: chunk.reasoning } : {}),
      })
      if (Date.now() - lastSave >= saveEvery) {
        messages.progress(assistant.id, content, reasoning)
        lastSave = Date.now()
      }
    }
  } catch (thrown) {
    if (signal.aborted) {
      const reason = signal.reason as StopReason
      status = reason === 'shutdown' ? 'interrupted' : 'stopped'
      if (reason === 'shutdown') error = 'the chat server was stopped while this answer was being written'
    } else {
      status = 'error'
      error = (thrown as Error).message || String(thrown)
      if (thrown instanceof SvcError) code = thrown.code
      options.logger.warn('answer failed', { message: assistant.id, error })
    }
  }
  messages.finish(assistant.id, { status, content, reasoning, error })
  const final: Message = { ...assistant, status, content, reasoning, error }
  options.emit('done', {
    message: final,
    allowance: afterAnswer(allowance, used),
    ...(code ? { code } : {}),
  })
  return final
}

interface Chunk {
  content: string
  reasoning: string
  error?: string
  /** Tokens the answer used: the last chunk's `usage`, or llama.cpp's `timings` (in every stream). */
  used?: number
}

/** Reads one OpenAI stream chunk; svc ends a stream whose upstream died with `{"error": …}`. */
function parseChunk(data: string): Chunk {
  let json: unknown
  try {
    json = JSON.parse(data)
  } catch {
    return { content: '', reasoning: '' }
  }
  const body = json as {
    error?: { message?: string } | string
    choices?: { delta?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown } }[]
    usage?: { total_tokens?: unknown }
    timings?: { prompt_n?: unknown; cache_n?: unknown; predicted_n?: unknown }
  }
  if (body.error) {
    return {
      content: '',
      reasoning: '',
      error: readErrorBody(body, 'the model failed while answering').message,
    }
  }
  const delta = body.choices?.[0]?.delta
  const text = (v: unknown) => (typeof v === 'string' ? v : '')
  const num = (v: unknown) => (typeof v === 'number' ? v : 0)
  const t = body.timings
  const used = body.usage
    ? num(body.usage.total_tokens)
    : t
      ? num(t.prompt_n) + num(t.cache_n) + num(t.predicted_n)
      : undefined
  return {
    content: text(delta?.content),
    reasoning: text(delta?.reasoning_content) || text(delta?.reasoning),
    ...(used ? { used } : {}),
  }
}
