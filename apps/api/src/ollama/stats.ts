/** Ollama's counts and durations (nanoseconds) from an OpenAI answer's `usage` and llama-server's `timings`. */

export interface OpenAiUsage {
  prompt_tokens?: number
  completion_tokens?: number
}

/** llama-server's per-answer timings (ms). */
export interface EngineTimings {
  prompt_n?: number
  prompt_ms?: number
  predicted_n?: number
  predicted_ms?: number
}

export interface OllamaStats {
  total_duration: number
  load_duration: number
  prompt_eval_count: number
  prompt_eval_duration: number
  eval_count: number
  eval_duration: number
}

const ns = (ms: number) => Math.round(ms * 1e6)

/**
 * `total_duration` is svc's own time for the request (from `started`, a `performance.now()`), so it
 * includes a wait for a loading slot; `load_duration` is 0: a slot is loaded before it serves, and
 * the wait is not a load svc can attribute to this request. Counts come from `usage` (the prompt
 * count includes cached tokens, as Ollama's does), durations from the engine's `timings` (0 when a
 * hosted upstream sends none).
 */
export function ollamaStats(started: number, usage?: OpenAiUsage, timings?: EngineTimings): OllamaStats {
  return {
    total_duration: ns(performance.now() - started),
    load_duration: 0,
    prompt_eval_count: usage?.prompt_tokens ?? timings?.prompt_n ?? 0,
    prompt_eval_duration: ns(timings?.prompt_ms ?? 0),
    eval_count: usage?.completion_tokens ?? timings?.predicted_n ?? 0,
    eval_duration: ns(timings?.predicted_ms ?? 0),
  }
}

/** Ollama's `done_reason` for an OpenAI `finish_reason` (a tool call ends with "stop" in Ollama). */
export function doneReason(finish: string | null | undefined): string {
  return finish === 'length' ? 'length' : 'stop'
}
