/**
 * Streamed generations at a fixed concurrency, timed on arrival of every SSE event: what a user feels
 * of an LLM (time to first token, the gaps between tokens, tokens per second). Three APIs, each the
 * same prompt and token budget: OpenAI chat completions, OpenAI Responses and Anthropic Messages.
 */
import { request } from 'node:http'

export const STREAM_APIS = ['chat', 'responses', 'messages'] as const
/** Which API a stream speaks: `/v1/chat/completions`, `/v1/responses` or `/v1/messages`. */
export type StreamApi = (typeof STREAM_APIS)[number]

interface ApiShape {
  path: string
  body(model: string, maxTokens: number): Record<string, unknown>
  /** Whether one SSE event (its lines, without the blank line after it) carries a content token. */
  isToken(event: string): boolean
}

const PROMPT = { role: 'user', content: 'Tell me a story.' }
// A token per content delta event, as the engine sends one per token. Reasoning deltas are not
// counted on any API (chat's `reasoning_content`, Responses' `response.reasoning_text.delta`,
// Messages' `thinking_delta`), nor tool-call deltas.
const CHAT_CONTENT = /"delta":\{[^}]*"content":"/
const RESPONSES_TEXT = /^event: response\.output_text\.delta$/m
const MESSAGES_DELTA = /^event: content_block_delta$/m

export const API_SHAPES: Record<StreamApi, ApiShape> = {
  chat: {
    path: '/v1/chat/completions',
    body: (model, maxTokens) => ({ model, stream: true, max_tokens: maxTokens, messages: [PROMPT] }),
    isToken: (event) => CHAT_CONTENT.test(event),
  },
  responses: {
    path: '/v1/responses',
    body: (model, maxTokens) => ({ model, stream: true, max_output_tokens: maxTokens, input: [PROMPT] }),
    isToken: (event) => RESPONSES_TEXT.test(event),
  },
  messages: {
    path: '/v1/messages',
    body: (model, maxTokens) => ({ model, stream: true, max_tokens: maxTokens, messages: [PROMPT] }),
    isToken: (event) => MESSAGES_DELTA.test(event) && event.includes('"text_delta"'),
  },
}

export interface StreamTarget {
  url: string
  model: string
  headers?: Record<string, string>
}

export interface StreamRun {
  /** Content tokens received (one per content delta event). */
  tokens: number
  seconds: number
  tokensPerSecond: number
  /** Request sent → first content token (ms), one per request. */
  ttftMs: number[]
  /** Between consecutive content tokens of one stream (ms). */
  gapMs: number[]
  errors: number
  /** The distinct reasons of the errors (at most 5), to print. */
  errorReasons: string[]
}

export interface StreamLoad {
  concurrency: number
  /** Requests in all (spread over the connections). */
  requests: number
  maxTokens: number
  /** Default `chat`. */
  api?: StreamApi
}

/**
 * Runs `load.requests` streamed requests, `load.concurrency` at a time, a new connection each (no
 * agent: even without keep-alive Node's agent hands a queued request a finished socket): llama-server
 * answers `keep-alive` but closes the connection after a streamed response, so a reused socket would
 * fail requests on the direct path. Both paths pay the same loopback connect.
 */
export async function runStreams(target: StreamTarget, load: StreamLoad): Promise<StreamRun> {
  const run: StreamRun = {
    tokens: 0,
    seconds: 0,
    tokensPerSecond: 0,
    ttftMs: [],
    gapMs: [],
    errors: 0,
    errorReasons: [],
  }
  let next = 0
  const began = performance.now()
  const worker = async () => {
    while (next < load.requests) {
      next++
      await oneStream(target, API_SHAPES[load.api ?? 'chat'], load.maxTokens, run).catch((error: Error) => {
        run.errors++
        const reason = error.message
        if (run.errorReasons.length < 5 && !run.errorReasons.includes(reason)) run.errorReasons.push(reason)
      })
    }
  }
  await Promise.all(Array.from({ length: load.concurrency }, worker))
  run.seconds = (performance.now() - began) / 1000
  run.tokensPerSecond = run.tokens / run.seconds
  return run
}

function oneStream(target: StreamTarget, api: ApiShape, maxTokens: number, run: StreamRun): Promise<void> {
  const body = JSON.stringify(api.body(target.model, maxTokens))
  return new Promise((resolve, reject) => {
    const sent = performance.now()
    let last = 0
    let carry = ''
    const req = request(
      `${target.url}${api.path}`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', ...target.headers },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (d: string) => {
            text += d
          })
          res.on('end', () => reject(new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`)))
          return
        }
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          const now = performance.now()
          const events = (carry + chunk).split('\n\n')
          carry = events.pop() ?? ''
          for (const event of events) {
            if (!api.isToken(event)) continue
            run.tokens++
            if (last === 0) run.ttftMs.push(now - sent)
            else run.gapMs.push(now - last)
            last = now
          }
        })
        res.on('end', () => resolve())
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
