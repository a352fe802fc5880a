/**
 * The inference routes of the FLM stand-in, following the behaviour docs/providers.md ("npu") records for
 * `flm serve` (rest_handler.cpp): `model` hot-swaps the loaded LLM, most errors are HTTP 200 with
 * `{"error":"…"}`, only "Max length reached!" is a 400 with an error object, no ASR/embedding model
 * means a `null` body, embeddings take strings only, transcriptions read only `file` and `model`.
 */
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { FLM_ASR_TAG, FLM_EMBED_DIMS, FLM_EMBED_TAG, flmTagKind, rectifyTag } from './flm-catalog'

export interface FlmState {
  /** The LLM tag currently on the NPU (null until one is loaded). */
  loaded: string | null
  /** Every tag the server switched to after a request named a different one. */
  switches: string[]
  /** Each inference request: its path and the `model` it sent. */
  requests: { path: string; model?: string }[]
  asr: boolean
  embed: boolean
  ctxLen: number
}

export type Reply = { status: number; json: unknown } | { stream: (res: ServerResponse) => void }

const json = (status: number, body: unknown): Reply => ({ status, json: body })
const now = () => Math.floor(Date.now() / 1000)

/** Resolves and, when it differs, switches to the requested LLM tag; an error reply otherwise. */
function selectLlm(state: FlmState, model: unknown): string | Reply {
  if (model === undefined || model === '') {
    return state.loaded ?? json(200, { error: 'No model loaded; name one in "model"' })
  }
  const tag = typeof model === 'string' ? rectifyTag(model) : undefined
  if (!tag) return json(200, { error: `Model not found: ${String(model)}` })
  if (flmTagKind(tag) !== 'llm') return json(200, { error: `${tag} is not a language model` })
  if (tag !== state.loaded) {
    state.switches.push(tag)
    state.loaded = tag
  }
  return tag
}

function answerFor(tag: string, prompt: string, maxTokens: unknown): string[] {
  const words = `The NPU stand-in (${tag}) heard: ${prompt}`.split(/\s+/).filter(Boolean)
  const limit = typeof maxTokens === 'number' && maxTokens > 0 ? maxTokens : 4096
  return words.slice(0, limit)
}

const promptTokens = (text: string) => Math.ceil(text.length / 4)
const tooLong = () => json(400, { error: { message: 'Max length reached!', type: 'model_error', code: 400 } })

export function chatCompletions(state: FlmState, body: Record<string, unknown>): Reply {
  const tag = selectLlm(state, body.model)
  if (typeof tag !== 'string') return tag
  const messages = body.messages
  if (!Array.isArray(messages) || messages.length === 0) return json(200, { error: 'messages is required' })
  const text = messages.map((m) => (typeof m?.content === 'string' ? m.content : '')).join('\n')
  if (promptTokens(text) > state.ctxLen) return tooLong()
  const last = [...messages].reverse().find((m) => m?.role === 'user')
  const words = answerFor(tag, typeof last?.content === 'string' ? last.content : '', body.max_tokens)
  const id = `chatcmpl-${Date.now()}`
  if (body.stream === true) {
    return {
      stream: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        const chunk = (delta: Record<string, unknown>, finish: string | null) =>
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now(), model: tag, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
        res.write(chunk({ role: 'assistant', content: '' }, null))
        words.forEach((w, i) => {
          res.write(chunk({ content: i === 0 ? w : ` ${w}` }, null))
        })
        res.write(chunk({}, 'stop'))
        res.end('data: [DONE]\n\n')
      },
    }
  }
  const usage = usageFor(promptTokens(text), words.length)
  return json(200, {
    id,
    object: 'chat.completion',
    created: now(),
    model: tag,
    choices: [{ index: 0, message: { role: 'assistant', content: words.join(' ') }, finish_reason: 'stop' }],
    usage,
  })
}

export function completions(state: FlmState, body: Record<string, unknown>): Reply {
  const tag = selectLlm(state, body.model)
  if (typeof tag !== 'string') return tag
  if (typeof body.prompt !== 'string') return json(200, { error: 'prompt is required' })
  if (promptTokens(body.prompt) > state.ctxLen) return tooLong()
  const words = answerFor(tag, body.prompt, body.max_tokens)
  return json(200, {
    id: `cmpl-${Date.now()}`,
    object: 'text_completion',
    created: now(),
    model: tag,
    choices: [{ index: 0, text: words.join(' '), finish_reason: 'stop' }],
    usage: usageFor(promptTokens(body.prompt), words.length),
  })
}

function usageFor(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prefill_speed_tps: 512.0,
    decoding_speed_tps: 20.0,
  }
}

export function embeddings(state: FlmState, body: Record<string, unknown>): Reply {
  if (!state.embed) return json(200, null)
  const input = typeof body.input === 'string' ? [body.input] : body.input
  if (!Array.isArray(input)) return json(200, { error: 'input must be a string or an array of strings' })
  // FLM reads the items as strings; token-id arrays throw inside the handler (→ 500).
  if (input.some((i) => typeof i !== 'string')) {
    return json(500, { error: '[json.exception.type_error.302] type must be string, but is number' })
  }
  return json(200, {
    object: 'list',
    model: FLM_EMBED_TAG,
    data: (input as string[]).map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vectorOf(text),
    })),
    usage: { prompt_tokens: 0, total_tokens: 0 },
  })
}

/** A deterministic unit vector per text, so equal texts embed equally. */
function vectorOf(text: string): number[] {
  const v: number[] = []
  let seed = createHash('sha256').update(text).digest()
  while (v.length < FLM_EMBED_DIMS) {
    for (let i = 0; i + 1 < seed.length && v.length < FLM_EMBED_DIMS; i += 2)
      v.push(seed.readInt16LE(i) / 32768)
    seed = createHash('sha256').update(seed).digest()
  }
  const norm = Math.hypot(...v) || 1
  return v.map((x) => x / norm)
}

export async function transcriptions(state: FlmState, contentType: string, raw: Buffer): Promise<Reply> {
  if (!state.asr) return json(200, null)
  let form: FormData
  try {
    form = await new Request('http://flm.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(raw),
    }).formData()
  } catch {
    return json(200, { error: 'Expected a multipart/form-data body' })
  }
  const file = form.get('file')
  if (!file || typeof file === 'string') return json(200, { error: 'Missing file' })
  const bytes = (await file.arrayBuffer()).byteLength
  return json(200, { model: FLM_ASR_TAG, text: `stand-in transcript of ${bytes} bytes` })
}
