/**
 * Token usage of one response, read from what it ends with: OpenAI's `usage` object (the JSON body,
 * or the last chunk of a stream asked for with `stream_options.include_usage`; the Responses API's
 * and Anthropic's `input_tokens`/`output_tokens` too) and llama.cpp's `timings`, which llama-server
 * puts in the last chunk of chat streams and in chat JSON bodies.
 */
import { jsonStringEnd } from '@svc/core'
import { CLOSE_OBJECT, COLON, OPEN_OBJECT, QUOTE, SPACE, TAB } from './json-chars'

export interface Usage {
  promptTokens: number
  completionTokens: number
  /**
   * How long the engine spent generating the completion tokens (llama.cpp `timings.predicted_ms`):
   * no queueing, no prompt processing, no network. Absent when the upstream does not say.
   */
  generationMs?: number
  /**
   * Seconds of audio a transcription took in: OpenAI's `usage: {type: "duration", seconds}` or the
   * `duration` of a `verbose_json` answer (whisper-server). Absent when the answer does not say.
   */
  audioSeconds?: number
}

interface UsageJson {
  prompt_tokens?: unknown
  completion_tokens?: unknown
  /** The Responses API's and Anthropic's names (Anthropic's excludes `cache_read_input_tokens`). */
  input_tokens?: unknown
  output_tokens?: unknown
  cache_read_input_tokens?: unknown
  seconds?: unknown
}
interface TimingsJson {
  prompt_n?: unknown
  cache_n?: unknown
  predicted_n?: unknown
  predicted_ms?: unknown
}

/**
 * Finds the last `usage` and `timings` objects in the tail of a response without parsing the
 * whole body: the proxy keeps only the last few KB of what it streamed, so counting tokens costs no
 * buffering. Objects may nest (llama-server's `usage.prompt_tokens_details`). With only `timings`
 * (a stream without `include_usage`), the counts come from it. Undefined when neither is there.
 */
export function usageFromTail(tail: string): Usage | undefined {
  const usage = lastObject<UsageJson>(tail, '"usage"')
  const timings = lastObject<TimingsJson>(tail, '"timings"')
  const prompt =
    num(usage?.prompt_tokens) ??
    inputTokens(usage) ??
    (num(timings?.prompt_n) !== undefined
      ? num(timings?.prompt_n)! + (num(timings?.cache_n) ?? 0)
      : undefined)
  const completion = num(usage?.completion_tokens) ?? num(usage?.output_tokens) ?? num(timings?.predicted_n)
  // A transcription's `duration` is looked for only in an answer without token counts (a chat answer
  // never has one, and this runs at the end of every answer).
  const audio =
    num(usage?.seconds) ?? (prompt === undefined && completion === undefined ? lastDuration(tail) : undefined)
  if (prompt === undefined && completion === undefined && audio === undefined) return undefined
  const ms = num(timings?.predicted_ms)
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    ...(ms !== undefined && ms > 0 ? { generationMs: ms } : {}),
    ...(audio !== undefined ? { audioSeconds: audio } : {}),
  }
}

/** `input_tokens` (Responses, Messages), with Anthropic's cache reads added back. */
function inputTokens(usage: UsageJson | undefined): number | undefined {
  const input = num(usage?.input_tokens)
  return input === undefined ? undefined : input + (num(usage?.cache_read_input_tokens) ?? 0)
}

/** The number after the last `"duration":` (a transcription's `verbose_json`), if any. */
function lastDuration(tail: string): number | undefined {
  const at = tail.lastIndexOf('"duration"')
  if (at < 0) return undefined
  const match = /^"duration"\s*:\s*(\d+(?:\.\d+)?)/.exec(tail.slice(at, at + 40))
  return match ? num(Number(match[1])) : undefined
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/** The JSON object after the last `key:` in `text`, braces balanced (strings respected), parsed. */
function lastObject<T>(text: string, key: string): T | undefined {
  let at = text.lastIndexOf(key)
  while (at >= 0) {
    const parsed = objectAt<T>(text, at + key.length)
    if (parsed) return parsed
    at = at > 0 ? text.lastIndexOf(key, at - 1) : -1
  }
  return undefined
}

function objectAt<T>(text: string, from: number): T | undefined {
  let i = from
  while (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB) i++
  if (text.charCodeAt(i) !== COLON) return undefined
  i++
  while (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB) i++
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined
  const start = i
  let depth = 0
  // Character codes, and strings skipped with indexOf: this runs at the end of every answer.
  for (; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === QUOTE) {
      i = jsonStringEnd(text, i)
      if (i < 0) return undefined // cut off inside a string
    } else if (ch === OPEN_OBJECT) depth++
    else if (ch === CLOSE_OBJECT && --depth === 0) {
      try {
        const value: unknown = JSON.parse(text.slice(start, i + 1))
        return value && typeof value === 'object' ? (value as T) : undefined
      } catch {
        return undefined
      }
    }
  }
  return undefined // cut off: the object did not end in the tail
}
