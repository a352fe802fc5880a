/**
 * The soak's requests, each what a real client does, each checking its answer. A step resolves with
 * nothing or throws a `StepError` whose `what` names the failure (`502 upstream.unavailable`,
 * `fetch failed: ECONNRESET`, `no [DONE]`); the runner tallies them by kind.
 */

export class StepError extends Error {
  /** `what`: the kind of failure (status and code); `detail`: one example message. */
  constructor(
    readonly what: string,
    readonly detail = '',
  ) {
    super(detail ? `${what}: ${detail}` : what)
  }
}

export interface Client {
  apiUrl: string
  /** The admin token every step but the token cycle sends. */
  token: string
}

const TIMEOUT_MS = 120_000

async function call(
  client: Client,
  path: string,
  init: { method?: string; json?: unknown; token?: string; expect?: number; timeoutMs?: number } = {},
): Promise<Response> {
  let res: Response
  try {
    res = await fetch(`${client.apiUrl}${path}`, {
      method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${init.token ?? client.token}`,
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      // The signal bounds the body too: a subscriber that reads for longer passes its own bound.
      signal: AbortSignal.timeout(init.timeoutMs ?? TIMEOUT_MS),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name
    throw new StepError(`fetch failed: ${cause}`)
  }
  if (res.status !== (init.expect ?? 200)) {
    const text = await res.text().catch(() => '')
    let code = ''
    let message = text.slice(0, 200)
    try {
      const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error
      code = error?.code ?? ''
      message = error?.message ?? message
    } catch {
      // not JSON
    }
    throw new StepError(`${res.status} ${code}`.trim(), message)
  }
  return res
}

const messages = [{ role: 'user', content: 'Say something about soaking.' }]

export async function chat(client: Client): Promise<void> {
  const res = await call(client, '/v1/chat/completions', {
    json: { model: 'primary', messages, max_tokens: 8 },
  })
  const body = (await res.json()) as { choices?: unknown[] }
  if (!body.choices?.length) throw new StepError('no choices')
}

export async function chatStream(client: Client): Promise<void> {
  const res = await call(client, '/v1/chat/completions', {
    json: { model: 'primary', messages, max_tokens: 16, stream: true },
  })
  const text = await res.text()
  if (!text.includes('data: [DONE]')) throw new StepError(`stream without [DONE] (${text.slice(-120)})`)
  if (text.includes('"error"')) throw new StepError('stream ended with an error event')
}

export async function embed(client: Client): Promise<void> {
  const res = await call(client, '/v1/embeddings', { json: { model: 'embed', input: 'a soaked sponge' } })
  const body = (await res.json()) as { data?: { embedding?: number[] }[] }
  if (!body.data?.[0]?.embedding?.length) throw new StepError('no embedding')
}

export async function speech(client: Client): Promise<void> {
  const res = await call(client, '/v1/audio/speech', {
    json: { model: 'tts', input: 'Soak test.', voice: 'alloy', response_format: 'wav' },
  })
  const audio = new Uint8Array(await res.arrayBuffer())
  if (audio.length < 1000) throw new StepError(`short audio (${audio.length} bytes)`)
}

export async function image(client: Client): Promise<void> {
  const res = await call(client, '/v1/images/generations', {
    json: { model: 'sdxl-turbo', prompt: 'a sponge', size: '64x64', steps: 1 },
  })
  const body = (await res.json()) as { data?: { url?: string }[] }
  const url = body.data?.[0]?.url
  if (!url) throw new StepError('no image url')
  const png = await call(client, url)
  if ((await png.arrayBuffer()).byteLength < 50) throw new StepError('empty image')
}

/**
 * Creates a v1-only token, uses it, revokes it, and checks that it is refused at once. The refusal
 * is the step's success; `onRefused` lets the runner count it as an expected 401.
 */
export async function tokenCycle(client: Client, onRefused: () => void): Promise<void> {
  const created = await call(client, '/api/auth/tokens', {
    json: { label: `soak ${Date.now()}`, scope: 'v1-only' },
    expect: 201,
  })
  const { id, token } = (await created.json()) as { id: string; token: string }
  await call(client, '/v1/embeddings', { json: { model: 'embed', input: 'with a fresh token' }, token })
  await call(client, `/api/auth/tokens/${id}`, { method: 'DELETE' })
  await call(client, '/v1/embeddings', { json: { model: 'embed', input: 'revoked' }, token, expect: 401 })
  onRefused()
}

/** Swaps the model of the primary slot (unload, then load) and waits until it is ready. */
export async function swap(client: Client, model: string): Promise<void> {
  await call(client, '/api/slots/primary/load?wait=true', { json: { model } })
}

/**
 * An `/api/events` subscriber: reads the stream for `ms` (pausing `pauseMs` between reads to play a
 * slow client), checks that it starts with a snapshot, and returns how many events it saw.
 */
export async function subscribe(client: Client, ms: number, pauseMs = 0): Promise<number> {
  const res = await call(client, '/api/events', { timeoutMs: ms + TIMEOUT_MS })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let events = 0
  const until = Date.now() + ms
  try {
    while (Date.now() < until) {
      const next = await Promise.race([
        reader.read(),
        new Promise<'idle'>((r) => setTimeout(() => r('idle'), Math.max(1, until - Date.now()))),
      ])
      if (next === 'idle') break
      if (next.done) throw new StepError('event stream ended by svc')
      text += decoder.decode(next.value, { stream: true })
      const blocks = text.split('\n\n')
      text = blocks.pop() ?? ''
      for (const block of blocks) {
        if (!block.startsWith(':')) events++
        if (events === 1 && !/^event: snapshot$/m.test(block)) throw new StepError('no snapshot first')
      }
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs))
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  if (events === 0) throw new StepError('no snapshot')
  return events
}
