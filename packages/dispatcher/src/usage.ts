/** Token usage as an OpenAI response reports it (`usage` of the last chunk or the JSON body). */
export interface Usage {
  promptTokens: number
  completionTokens: number
}

const USAGE = /"usage"\s*:\s*\{[^{}]*\}/g

/**
 * Finds the last `usage` object in the tail of a response without parsing the whole body: the
 * proxy keeps only the last few KB of what it streamed, so counting tokens costs no buffering.
 */
export function usageFromTail(tail: string): Usage | undefined {
  if (!tail.includes('"usage"')) return undefined
  const matches = tail.match(USAGE)
  const last = matches?.at(-1)
  if (!last) return undefined
  try {
    const u = JSON.parse(`{${last}}`).usage as { prompt_tokens?: number; completion_tokens?: number }
    if (typeof u.prompt_tokens !== 'number') return undefined
    return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens ?? 0 }
  } catch {
    return undefined
  }
}
