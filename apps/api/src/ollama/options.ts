/**
 * Ollama's request knobs → the OpenAI/llama-server fields the engine takes (docs/ollama.md has the
 * table). Sampling `options` keep their llama.cpp names where llama-server reads them; options that
 * shape the loaded model (`num_ctx`, `num_gpu`, `num_thread`, `num_batch`, `use_mmap`, …) are the
 * slot's config in svc and are ignored here, as is `keep_alive` (a slot stays loaded until it is
 * unloaded).
 */
import { SvcError } from '@svc/core'

/** Options passed on under the same name (llama-server reads each of them). */
const SAME_NAME = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'seed',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'repeat_penalty',
  'repeat_last_n',
  'typical_p',
  'mirostat',
  'mirostat_tau',
  'mirostat_eta',
] as const

/** The sampling fields of an OpenAI body for an Ollama request's `options`. */
export function samplingFields(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!options) return out
  for (const name of SAME_NAME) if (options[name] !== undefined) out[name] = options[name]
  // Ollama: -1 = no limit, -2 = fill the context; both mean "no max_tokens" to the engine.
  const predict = options.num_predict
  if (typeof predict === 'number' && predict > 0) out.max_tokens = Math.floor(predict)
  return out
}

/**
 * `format`: `"json"` → any JSON object; a JSON schema → `json_schema`, which llama-server turns into
 * a grammar, so the answer matches the schema. `""` or absent: free text.
 */
export function formatField(format: unknown): Record<string, unknown> {
  if (format === undefined || format === null || format === '') return {}
  if (format === 'json') return { response_format: { type: 'json_object' } }
  if (typeof format === 'object' && !Array.isArray(format)) {
    return {
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'format', schema: format, strict: true },
      },
    }
  }
  throw new SvcError('request.invalid', 'format must be "json" or a JSON schema object', { param: 'format' })
}

/**
 * `think`: true/false switch a thinking model's reasoning through its chat template
 * (`enable_thinking`); "low" | "medium" | "high" are a reasoning effort (gpt-oss).
 */
export function thinkField(think: unknown): Record<string, unknown> {
  if (typeof think === 'boolean') return { chat_template_kwargs: { enable_thinking: think } }
  if (typeof think === 'string') return { reasoning_effort: think }
  return {}
}
