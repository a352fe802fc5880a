/**
 * Ollama's request knobs → the OpenAI/llama-server fields the engine takes (docs/ollama.md has the
 * table). `options` keep their llama.cpp names (llama-server reads them; one svc does not know passes
 * as it came); options that shape the loaded model (`num_ctx`, `num_gpu`, `num_thread`, `num_batch`,
 * `use_mmap`, …) are the slot's config in svc and are not sent. `keep_alive` is keep-alive.ts's.
 */
import { SvcError } from '@svc/core'

/**
 * Options that shape the loaded model: the slot's config (or a preset's `args`/`ctx_size`) in svc,
 * not a field of one request. Every other option goes to the engine under its own name:
 * llama-server reads llama.cpp's sampling names (`temperature`, `top_k`, `min_p`, `mirostat`,
 * `repeat_penalty`, `xtc_probability`, `dry_multiplier`, …), and an option svc does not know is the
 * engine's to judge, so a client's newer knob works without a change here (issue 38: svc validates
 * only what it must know).
 */
const LOAD_OPTIONS = new Set([
  'num_ctx',
  'num_batch',
  'num_gpu',
  'main_gpu',
  'low_vram',
  'num_thread',
  'numa',
  'use_mmap',
  'use_mlock',
  'vocab_only',
  'f16_kv',
  'logits_all',
])

/** The sampling fields of an OpenAI body for an Ollama request's `options`. */
export function samplingFields(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!options) return out
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && name !== 'num_predict' && !LOAD_OPTIONS.has(name)) out[name] = value
  }
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
 * (`enable_thinking`); a string is a reasoning effort ("low" | "medium" | "high" for gpt-oss; a
 * newer level passes to the engine as it came).
 */
export function thinkField(think: unknown): Record<string, unknown> {
  if (typeof think === 'boolean') return { chat_template_kwargs: { enable_thinking: think } }
  if (typeof think === 'string') return { reasoning_effort: think }
  return {}
}
