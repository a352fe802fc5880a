/** The chat requests the switch and replicas sections send, each timed by the client. */

/** A chat message as sent. */
export interface Message {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** One answered request: ms from send to the whole answer, and (streamed) to its first event. */
export interface Timed {
  ms: number
  /** Time to the first SSE event, streamed requests only. */
  firstMs?: number
  /** The answer's text (streamed: the deltas joined). */
  content: string
  /** The `model` the answer names (llama-server's alias: which model or replica answered). */
  model: string
  completionTokens: number
}

/**
 * Posts a chat completion to `base` and waits for the whole answer. Throws on a non-2xx answer (the
 * bench reports a failed run rather than a figure that hides it). With `stream`, reads the SSE
 * stream and notes when the first event arrived (time to first token: llama-server sends nothing
 * before the prompt is processed).
 */
export async function timedChat(
  base: string,
  body: { model: string; messages: Message[]; max_tokens: number; stream?: boolean },
  headers: Record<string, string> = {},
): Promise<Timed> {
  const began = performance.now()
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      temperature: 0,
      ...body,
      ...(body.stream ? { stream_options: { include_usage: true } } : {}),
    }),
  })
  if (!res.ok) throw new Error(`${base} ${body.model}: ${res.status} ${await res.text()}`)
  if (!body.stream) {
    const json = (await res.json()) as {
      model: string
      choices: { message: { content: string } }[]
      usage?: { completion_tokens: number }
    }
    return {
      ms: performance.now() - began,
      content: json.choices[0]?.message.content ?? '',
      model: json.model,
      completionTokens: json.usage?.completion_tokens ?? 0,
    }
  }
  let firstMs: number | undefined
  let content = ''
  let model = ''
  let completionTokens = 0
  let carry = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    firstMs ??= performance.now() - began
    const events = (carry + decoder.decode(chunk, { stream: true })).split('\n\n')
    carry = events.pop() ?? ''
    for (const event of events) {
      const data = event.replace(/^data: /, '')
      if (!event.startsWith('data: ') || data === '[DONE]') continue
      const json = JSON.parse(data) as {
        model?: string
        choices?: { delta?: { content?: string } }[]
        usage?: { completion_tokens: number }
      }
      model ||= json.model ?? ''
      content += json.choices?.[0]?.delta?.content ?? ''
      if (json.usage) completionTokens = json.usage.completion_tokens
    }
  }
  return { ms: performance.now() - began, firstMs, content, model, completionTokens }
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
