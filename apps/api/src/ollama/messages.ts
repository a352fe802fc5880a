/**
 * Ollama chat messages → OpenAI chat messages: `images` (base64, no data-URL prefix) become
 * `image_url` parts (svc refuses them, as on `/v1`, for a model without vision), an assistant's
 * `tool_calls` get OpenAI's shape (arguments as a JSON string, with ids), and a `tool` message is
 * tied to its call by `tool_call_id`, or else to the oldest open call of the same `tool_name`, or
 * else to the oldest open call.
 */
import type { OllamaMessage } from './schemas'

type OpenAiMessage = Record<string, unknown>

export function openAiMessages(messages: readonly OllamaMessage[]): OpenAiMessage[] {
  const open: { id: string; name: string }[] = []
  let next = 0
  return messages.map((m) => {
    const out: OpenAiMessage = { role: m.role, content: contentOf(m.content ?? '', m.images ?? undefined) }
    if (m.role === 'assistant' && m.tool_calls?.length) {
      out.tool_calls = m.tool_calls.map((call) => {
        const id = call.id ?? `call_${next++}`
        open.push({ id, name: call.function.name })
        const args = call.function.arguments
        return {
          id,
          type: 'function',
          function: {
            name: call.function.name,
            arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
          },
        }
      })
    }
    if (m.role === 'tool') {
      const at = m.tool_call_id
        ? open.findIndex((c) => c.id === m.tool_call_id)
        : Math.max(
            open.findIndex((c) => c.name === m.tool_name),
            0,
          )
      const call = at >= 0 ? open.splice(at, 1)[0] : undefined
      const id = m.tool_call_id ?? call?.id
      if (id) out.tool_call_id = id
    }
    return out
  })
}

/** Text alone stays a string; with images it becomes content parts. */
export function contentOf(text: string, images: readonly string[] | undefined): unknown {
  if (!images?.length) return text
  return [
    ...(text ? [{ type: 'text', text }] : []),
    ...images.map((b64) => ({ type: 'image_url', image_url: { url: dataUrl(b64) } })),
  ]
}

/** A data URL for a base64 image, its type told by its first bytes (Ollama sends bare base64). */
function dataUrl(b64: string): string {
  if (b64.startsWith('data:')) return b64
  const type = b64.startsWith('/9j/')
    ? 'image/jpeg'
    : b64.startsWith('R0lGOD')
      ? 'image/gif'
      : b64.startsWith('UklGR')
        ? 'image/webp'
        : 'image/png'
  return `data:${type};base64,${b64}`
}
