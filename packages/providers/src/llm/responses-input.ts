/**
 * Responses `input` items as the spec allows them, carried to what llama-server's converter reads
 * (tools/server/server-chat.cpp, `server_chat_convert_responses_to_chatcmpl`):
 *
 * - An item with a `role` and no `type` is an input message (OpenAPI `EasyInputMessage`: "type …
 *   Always `message`", optional). The engine takes it for user, system and developer, but refuses an
 *   assistant one with 400 `Cannot determine type of 'item'`: svc adds `type: "message"` there.
 * - A `reasoning` item as clients echo it back (`{type, id, summary, encrypted_content}`, `content`
 *   optional in the spec) is refused unless it has a non-empty `content`: svc fills `content` from
 *   the summary's text (`reasoning_text`), or drops an item with neither (it carries nothing the
 *   engine can read: `encrypted_content` is another server's).
 * - `item_reference` names a stored item; svc keeps none: 400 naming `input[i]`.
 *
 * Returns the new `input`, or undefined when every item is already as the engine reads it (no copy).
 */
import { isJsonObject, SvcError } from '@svc/core'

type Item = Record<string, unknown>

/** The roles whose untyped messages the engine reads as they are. */
const UNTYPED_ROLES = new Set(['user', 'system', 'developer'])

export function responsesInput(input: unknown): unknown[] | undefined {
  if (!Array.isArray(input)) return undefined
  let out: unknown[] | undefined
  for (let i = 0; i < input.length; i++) {
    const item = input[i] as unknown
    const carried = carriedItem(item, i)
    if (carried === item) {
      out?.push(item)
      continue
    }
    out ??= input.slice(0, i)
    if (carried !== undefined) out.push(carried)
  }
  return out
}

/** The item as the engine reads it: itself, a copy, or undefined to drop it. */
function carriedItem(item: unknown, index: number): unknown {
  if (!isJsonObject(item)) return item
  if (item.type === undefined && typeof item.role === 'string' && !UNTYPED_ROLES.has(item.role)) {
    return { ...item, type: 'message' }
  }
  if (item.type === 'reasoning') return reasoningItem(item)
  if (item.type === 'item_reference') {
    throw new SvcError(
      'request.invalid',
      'item_reference items name stored items, and svc keeps none: send the item itself',
      { param: `input[${index}]` },
    )
  }
  return item
}

function reasoningItem(item: Item): Item | undefined {
  const summary = Array.isArray(item.summary) ? item.summary : undefined
  if (summary && Array.isArray(item.content) && item.content.length > 0) return item
  const text = (Array.isArray(item.content) && item.content.length > 0 ? item.content : (summary ?? []))
    .map((part: unknown) => (isJsonObject(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n\n')
  if (text === '') return undefined
  return { ...item, summary: summary ?? [], content: [{ type: 'reasoning_text', text }] }
}
