/** The chat requests the switch and replicas sections send, each timed by the client. */
import { readSse } from '@svc/core'

/** A chat message as sent. */
export interface Message {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** One answered request: ms from send to the whole answer, and to its first event. */
export interface Timed {
  ms: number
  /** Time to the first SSE event: llama-server sends nothing before the prompt is processed. */
  firstMs: number
  /** The answer's text (the deltas joined). */
  content: string
  /** The `model` the answer names (llama-server's alias: which model or replica answered). */
  model: string
  completionTokens: number
}

/**
 * Posts a streamed chat completion to `base` and reads the answer to its end, noting when the first
 * event arrived. Throws on a non-2xx answer: the bench reports a failed run rather than a figure
 * that hides it.
 */
export async function timedChat(
  base: string,
  body: { model: string; messages: Message[]; max_tokens: number },
  headers: Record<string, string> = {},
): Promise<Timed> {
  const began = performance.now()
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, temperature: 0, stream: true, stream_options: { include_usage: true } }),
  })
  if (!res.ok || !res.body) throw new Error(`${base} ${body.model}: ${res.status} ${await res.text()}`)
  const answer: Timed = { ms: 0, firstMs: Number.NaN, content: '', model: '', completionTokens: 0 }
  for await (const { data } of readSse(res.body)) {
    if (Number.isNaN(answer.firstMs)) answer.firstMs = performance.now() - began
    if (data === '[DONE]') continue
    const json = JSON.parse(data) as {
      model?: string
      choices?: { delta?: { content?: string } }[]
      usage?: { completion_tokens: number }
    }
    answer.model ||= json.model ?? ''
    answer.content += json.choices?.[0]?.delta?.content ?? ''
    if (json.usage) answer.completionTokens = json.usage.completion_tokens
  }
  answer.ms = performance.now() - began
  return answer
}

/** Polls `url` every 5 ms until it answers 200 (the fastest anyone could know a server is ready). */
export async function untilHealthy(url: string, isDead: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const ok = await fetch(url).then(
      async (r) => {
        await r.body?.cancel()
        return r.status === 200
      },
      () => false,
    )
    if (ok) return
    if (isDead() || performance.now() > deadline) throw new Error(`${url} did not become healthy`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
