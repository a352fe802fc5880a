/**
 * A preset's request fields (`defaults`, `force`, `strip`), written in the OpenAI chat vocabulary,
 * applied to what svc sends the engine on each surface. The one place that knows how a field is
 * spelled per surface is `SURFACE_NAMES`: `max_tokens` is `max_output_tokens` on the Responses API,
 * `stop` is `stop_sequences` on Anthropic Messages, and the other spellings a client may use for the
 * same knob (`max_completion_tokens`, llama.cpp's `n_predict`) are governed with it. The Ollama API
 * reaches the engine as an OpenAI chat or completions body (svc translates `num_predict` to
 * `max_tokens` first), so it is governed by the chat row.
 *
 * Only the endpoints that generate get fields (chat, completions, Responses, Messages); embeddings,
 * rerank, speech, images and the token counts go as they came.
 */
import { type Endpoint, isJsonObject } from '@svc/core'

/** What happens to one field: filled when the client left it out, always set, or removed. */
export type FieldRule = { kind: 'default' | 'force'; value: unknown } | { kind: 'strip' }

/** The composed rules of one preset (`*`, its base presets, itself), by OpenAI chat field name. */
export type RequestFields = ReadonlyMap<string, FieldRule>

/** Endpoints whose bodies get a preset's fields. */
const SURFACES = ['chat', 'completions', 'responses', 'messages'] as const
type Surface = (typeof SURFACES)[number]

/**
 * Per surface: the chat field → every name the surface knows it by, the one svc sets first. A field
 * absent here has one name, the same on every surface.
 */
const SURFACE_NAMES: Record<Surface, Readonly<Record<string, readonly string[]>>> = {
  chat: {
    max_tokens: ['max_tokens', 'max_completion_tokens', 'n_predict'],
    max_completion_tokens: ['max_tokens', 'max_completion_tokens', 'n_predict'],
  },
  completions: { max_tokens: ['max_tokens', 'n_predict'] },
  responses: {
    max_tokens: ['max_output_tokens', 'max_tokens', 'max_completion_tokens', 'n_predict'],
    max_completion_tokens: ['max_output_tokens', 'max_tokens', 'max_completion_tokens', 'n_predict'],
  },
  messages: {
    max_tokens: ['max_tokens', 'n_predict'],
    max_completion_tokens: ['max_tokens', 'n_predict'],
    stop: ['stop_sequences', 'stop'],
  },
}

/** `base` with `over` laid on top, objects merged key by key (`over` wins); neither is changed. */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const under = out[key]
    out[key] = isJsonObject(under) && isJsonObject(value) ? deepMerge(under, value) : value
  }
  return out
}

function isSurface(endpoint: Endpoint): endpoint is Surface {
  return (SURFACES as readonly string[]).includes(endpoint)
}

/** A value as the surface takes it: Messages' `stop_sequences` is a list. */
function spelled(surface: Surface, field: string, value: unknown): unknown {
  return surface === 'messages' && field === 'stop' && typeof value === 'string' ? [value] : value
}

/**
 * `body` with `fields` applied for `endpoint`, as a new object (the body itself is never changed);
 * undefined when the endpoint takes no fields or none changes anything, so the caller forwards the
 * client's bytes as they came.
 *
 * - `strip`: every spelling of the field is removed.
 * - `defaults`: set when the client sent no spelling of it; an object the client sent is completed
 *   with the keys it lacks (the client's keys win).
 * - `force`: set, replacing the client's value and its other spellings; an object is merged into the
 *   client's (the preset's keys win), so `chat_template_kwargs.enable_thinking` can be forced alone.
 */
export function applyFields(
  fields: RequestFields,
  endpoint: Endpoint,
  body: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (fields.size === 0 || !isSurface(endpoint)) return undefined
  const names = SURFACE_NAMES[endpoint]
  let out: Record<string, unknown> | undefined
  const write = () => {
    out ??= { ...body }
    return out
  }
  for (const [field, rule] of fields) {
    const spellings = names[field] ?? [field]
    const main = spellings[0]!
    const current = out ?? body
    const sent = spellings.find((name) => current[name] !== undefined)
    if (rule.kind === 'strip') {
      if (sent === undefined) continue
      const target = write()
      for (const name of spellings) delete target[name]
      continue
    }
    const value = spelled(endpoint, field, rule.value)
    if (rule.kind === 'default') {
      if (sent === undefined) write()[main] = value
      else if (isJsonObject(value) && isJsonObject(current[sent]))
        write()[sent] = deepMerge(value, current[sent] as Record<string, unknown>)
      continue
    }
    const target = write()
    for (const name of spellings) if (name !== main) delete target[name]
    const had = current[main]
    target[main] = isJsonObject(value) && isJsonObject(had) ? deepMerge(had, value) : value
  }
  return out
}
