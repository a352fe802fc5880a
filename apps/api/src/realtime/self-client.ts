/**
 * A realtime session's calls to svc's own `/v1` (CONTRACT-41: each stt, primary and tts call goes
 * through the same auth, dispatcher, leases, usage and quotas as a plain request). Plain HTTP to the
 * address the server listens on, with the credentials the session was opened with. Every call takes
 * an `AbortSignal`: aborting it cuts the request, and the dispatcher then aborts the upstream's.
 */
import { readErrorBody, readSse } from '@svc/core'

/** A failed `/v1` call, with svc's error code and message (what the session's `error` event carries). */
export class SelfCallError extends Error {
  override readonly name = 'SelfCallError'
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null,
    readonly type: string,
  ) {
    super(message)
  }
}

export interface SelfClientOptions {
  /** `http://127.0.0.1:<port>`: where svc listens (asked when the call is made). */
  baseUrl: () => string
  /** The caller's credentials: `authorization`, `x-forwarded-email`, … as they came with the upgrade. */
  headers: Record<string, string>
}

/** A chat message as `/v1/chat/completions` takes it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface SelfClient {
  /**
   * Transcribes a WAV on the `model` (stt) slot. With `onDelta`, asks for `stream=true` and calls it
   * per delta as the server streams (an answer that does not stream gives one delta). Answers the text.
   */
  transcribe(
    wav: Uint8Array,
    options: { model: string; language?: string; prompt?: string; signal: AbortSignal },
    onDelta?: (delta: string) => void,
  ): Promise<string>
  /** Streams a chat completion; yields the content deltas. */
  chat(
    body: { model: string; messages: ChatMessage[]; max_tokens?: number; temperature?: number },
    signal: AbortSignal,
  ): AsyncGenerator<string>
  /** Speaks `input` as raw s16le mono 24 kHz (`response_format: "pcm"`); yields the bytes as they come. */
  speak(
    body: { model: string; input: string; voice: string; speed?: number },
    signal: AbortSignal,
  ): AsyncGenerator<Uint8Array>
}

export function createSelfClient(options: SelfClientOptions): SelfClient {
  async function post(path: string, body: BodyInit, signal: AbortSignal, json = true): Promise<Response> {
    const res = await fetch(options.baseUrl() + path, {
      method: 'POST',
      body,
      signal,
      headers: { ...options.headers, ...(json ? { 'content-type': 'application/json' } : {}) },
    })
    if (!res.ok) throw await callError(res)
    return res
  }

  return {
    async transcribe(wav, o, onDelta) {
      const form = new FormData()
      form.set('file', new Blob([wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'audio.wav')
      form.set('model', o.model)
      form.set('response_format', 'json')
      if (o.language) form.set('language', o.language)
      if (o.prompt) form.set('prompt', o.prompt)
      if (onDelta) form.set('stream', 'true')
      const res = await post('/v1/audio/transcriptions', form, o.signal, false)
      if (!onDelta || !res.headers.get('content-type')?.includes('text/event-stream')) {
        const text = ((await res.json()) as { text?: string }).text ?? ''
        onDelta?.(text)
        return text
      }
      let text = ''
      for await (const { data } of readSse(res.body!)) {
        const event = parse(data)
        if (event?.type === 'transcript.text.delta' && typeof event.delta === 'string') {
          text += event.delta
          onDelta(event.delta)
        } else if (event?.type === 'transcript.text.done' && typeof event.text === 'string') text = event.text
        else if (event?.error) throw errorFrom(event, 'transcription failed')
      }
      return text
    },
    async *chat(body, signal) {
      const res = await post('/v1/chat/completions', JSON.stringify({ ...body, stream: true }), signal)
      for await (const { data } of readSse(res.body!)) {
        if (data === '[DONE]') return
        const chunk = parse(data) as { choices?: { delta?: { content?: string | null } }[] } | undefined
        if (!chunk) continue
        if ((chunk as Record<string, unknown>).error) throw errorFrom(chunk, 'the chat model failed')
        const delta = chunk.choices?.[0]?.delta?.content
        if (delta) yield delta
      }
    },
    async *speak(body, signal) {
      const res = await post('/v1/audio/speech', JSON.stringify({ ...body, response_format: 'pcm' }), signal)
      const reader = res.body!.getReader()
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          if (value.byteLength) yield value
        }
      } finally {
        reader.releaseLock()
      }
    },
  }
}

async function callError(res: Response): Promise<SelfCallError> {
  const text = await res.text().catch(() => '')
  return errorFrom(text, `HTTP ${res.status}`, res.status)
}

function errorFrom(body: unknown, fallback: string, status = 502): SelfCallError {
  const { code, message, param } = readErrorBody(body, fallback)
  const type = status < 500 ? 'invalid_request_error' : 'server_error'
  return new SelfCallError(code ?? 'upstream.error', message, param, type)
}

function parse(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data)
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}
