/**
 * The models a remote OpenAI-compatible upstream serves, from its `GET /v1/models` (llama-server,
 * llama-swap, vLLM, Ollama's OpenAI API all answer it): what a remote slot loads when the slot file
 * names none, and what a named model is checked against.
 */

export type RemoteModels = { ok: true; url: string; models: string[] } | { ok: false; errors: string[] }

/**
 * Asks each URL in turn (replicas serve the same models) and returns the first answer; never throws.
 * Each attempt is bounded by `timeoutMs`.
 */
export async function fetchRemoteModels(urls: readonly string[], timeoutMs = 5_000): Promise<RemoteModels> {
  const errors: string[] = []
  for (const url of urls) {
    const target = new URL('v1/models', url.endsWith('/') ? url : `${url}/`)
    try {
      const res = await fetch(target, {
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      })
      if (!res.ok) {
        await res.body?.cancel()
        errors.push(`${target.origin}: HTTP ${res.status}`)
        continue
      }
      const body = (await res.json()) as { data?: unknown }
      if (!Array.isArray(body.data)) {
        errors.push(`${target.origin}: /v1/models did not answer an OpenAI model list`)
        continue
      }
      const models = body.data
        .map((m) => (m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined))
        .filter((id): id is string => typeof id === 'string' && id.length > 0)
      return { ok: true, url: target.origin, models }
    } catch (error) {
      errors.push(`${target.origin}: ${causeOf(error)}`)
    }
  }
  return { ok: false, errors }
}

function causeOf(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (e.name === 'TimeoutError') return 'no answer in time'
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error)
}
