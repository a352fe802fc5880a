/**
 * What the wrong-answering stand-in (`wrong-engine.ts`) says per surface: llama-server's own
 * answers (read from its source, tools/server/server-chat.cpp and server-task.cpp of the release
 * svc builds), wrong where the engine is wrong. A "model" whose only text is {@link WRONG_ENGINE_TEXT},
 * one word a token, so `max_tokens` and stop strings act predictably.
 */

/** The stand-in's whole answer; it writes its first `max_tokens` words. */
export const WRONG_ENGINE_TEXT =
  'Knock knock. Who is there? Orange. Orange who? Orange you glad I did not say banana?'
const WORDS = WRONG_ENGINE_TEXT.split(/(?= )/)

export type Body = Record<string, unknown>

/** What one generation came to: text, tokens, and why it stopped (llama-server's stop types). */
export interface Generation {
  text: string
  promptTokens: number
  outputTokens: number
  /** `limit`: max tokens reached; `word`: a stop string (`stoppingWord`); `eos`: the text ran out. */
  stop: 'limit' | 'word' | 'eos'
  stoppingWord: string
}

/** Generates for `limit` tokens (or all) with `stops` (the engine's stop strings). */
export function generate(body: Body, limit: unknown, stops: unknown): Generation {
  const promptTokens = Math.max(
    1,
    Math.ceil(JSON.stringify(body.messages ?? body.input ?? body.prompt ?? '').length / 4),
  )
  const max = typeof limit === 'number' && limit > 0 ? limit : WORDS.length
  const words = WORDS.slice(0, max)
  let text = words.join('')
  const list = typeof stops === 'string' ? [stops] : Array.isArray(stops) ? (stops as string[]) : []
  for (const word of list) {
    const at = text.indexOf(word)
    if (word && at >= 0) {
      text = text.slice(0, at)
      const outputTokens = text === '' ? 1 : text.split(/(?= )/).length
      return { text, promptTokens, outputTokens, stop: 'word', stoppingWord: word }
    }
  }
  const stop = max < WORDS.length ? 'limit' : 'eos'
  return { text, promptTokens, outputTokens: words.length, stop, stoppingWord: '' }
}

/** An SSE event as llama-server writes it (`event:` line only where it writes one). */
export type SseOut = { event?: string; data: unknown }

/** Unix seconds. */
export const now = (): number => Math.floor(Date.now() / 1000)
/** A random id suffix, as the engine's `random_string()`. */
export const rand = (): string => Math.random().toString(36).slice(2, 14)

/** `/v1/chat/completions` (right, as the engine is): finish_reason and usage as OpenAI's. */
export function chatAnswer(body: Body, model: string): { json?: unknown; events?: SseOut[] } {
  const g = generate(body, body.max_completion_tokens ?? body.max_tokens, body.stop)
  const finish = g.stop === 'limit' ? 'length' : 'stop'
  const usage = {
    prompt_tokens: g.promptTokens,
    completion_tokens: g.outputTokens,
    total_tokens: g.promptTokens + g.outputTokens,
  }
  const head = { id: `chatcmpl-${rand()}`, created: now(), model, system_fingerprint: 'wrong-engine' }
  if (!body.stream) {
    const message = { role: 'assistant', content: g.text }
    return {
      json: {
        ...head,
        object: 'chat.completion',
        choices: [{ index: 0, finish_reason: finish, message }],
        usage,
      },
    }
  }
  const chunk = (choices: unknown[], extra: Body = {}) => ({
    data: { ...head, object: 'chat.completion.chunk', choices, ...extra },
  })
  const events: SseOut[] = [
    chunk([{ index: 0, finish_reason: null, delta: { role: 'assistant', content: null } }]),
  ]
  for (const piece of g.text.split(/(?= )/))
    if (piece) events.push(chunk([{ index: 0, finish_reason: null, delta: { content: piece } }]))
  events.push(chunk([{ index: 0, finish_reason: finish, delta: {} }]))
  const options = body.stream_options as Body | undefined
  if (options?.include_usage) events.push(chunk([], { usage }))
  events.push({ data: '[DONE]' })
  return { events }
}

/** `/v1/completions`. */
export function completionAnswer(body: Body, model: string): { json?: unknown; events?: SseOut[] } {
  const g = generate(body, body.max_tokens, body.stop)
  const finish = g.stop === 'limit' ? 'length' : 'stop'
  const usage = {
    prompt_tokens: g.promptTokens,
    completion_tokens: g.outputTokens,
    total_tokens: g.promptTokens + g.outputTokens,
  }
  const head = { id: `cmpl-${rand()}`, object: 'text_completion', created: now(), model }
  if (!body.stream)
    return {
      json: { ...head, choices: [{ index: 0, text: g.text, finish_reason: finish, logprobs: null }], usage },
    }
  const events: SseOut[] = g.text
    .split(/(?= )/)
    .map((piece) => ({ data: { ...head, choices: [{ index: 0, text: piece, finish_reason: null }] } }))
  events.push({ data: { ...head, choices: [{ index: 0, text: '', finish_reason: finish }], usage } })
  events.push({ data: '[DONE]' })
  return { events }
}

/**
 * `/v1/messages`: `stop_reason` is `end_turn` when a stop sequence was hit (with `stop_sequence`
 * set to it), as the engine answers; the spec says `stop_sequence`.
 */
export function messagesAnswer(body: Body, model: string): { json?: unknown; events?: SseOut[] } {
  const g = generate(body, body.max_tokens, body.stop_sequences)
  const stopReason = g.stop === 'limit' ? 'max_tokens' : 'end_turn'
  const stopSequence = g.stoppingWord || null
  const id = `chatcmpl-${rand()}`
  if (!body.stream) {
    return {
      json: {
        id,
        type: 'message',
        role: 'assistant',
        content: g.text ? [{ type: 'text', text: g.text }] : [],
        model,
        stop_reason: stopReason,
        stop_sequence: stopSequence,
        usage: { cache_read_input_tokens: 0, input_tokens: g.promptTokens, output_tokens: g.outputTokens },
      },
    }
  }
  const message = {
    id,
    type: 'message',
    role: 'assistant',
    content: [],
    model,
    stop_reason: null,
    stop_sequence: null,
    usage: { cache_read_input_tokens: 0, input_tokens: g.promptTokens, output_tokens: 0 },
  }
  const events: SseOut[] = [{ event: 'message_start', data: { type: 'message_start', message } }]
  if (g.text) {
    events.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    })
    for (const piece of g.text.split(/(?= )/)) {
      events.push({
        event: 'content_block_delta',
        data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
      })
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } })
  }
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: stopSequence },
        usage: { output_tokens: g.outputTokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  )
  return { events }
}
