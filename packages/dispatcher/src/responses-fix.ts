/**
 * OpenAI Responses answers, held to the spec (OpenAI's OpenAPI document: `Response`,
 * `ResponseStreamEvent`) where llama-server is wrong:
 *
 * - A response cut short by `max_output_tokens` has `status: "incomplete"` and
 *   `incomplete_details: {reason: "max_output_tokens"}` (its message item `status: "incomplete"`,
 *   `completed_at: null`), and its stream ends with `response.incomplete`. The engine says
 *   `completed` whatever stopped it; svc reads the cut from `usage.output_tokens` reaching
 *   `max_output_tokens` (the engine's answer names no stop reason).
 * - The response object carries the fields the spec requires (`error`, `incomplete_details`,
 *   `instructions`, `tools`, `tool_choice`, `parallel_tool_calls`, `metadata`, `temperature`,
 *   `top_p`, `max_output_tokens`, `output`), echoing the request where the engine left them out;
 *   `usage.output_tokens_details.reasoning_tokens` is 0 when no reasoning item was written.
 * - Every stream event has `sequence_number`, and those about an item `output_index` (and
 *   `content_index`): the SDKs' stream helpers accumulate by them (`openai`'s
 *   `responses.stream()` throws "missing output at index undefined" without). A reasoning item's
 *   first `reasoning_text` delta is preceded by the `response.content_part.added` the engine leaves
 *   out (only when none was sent).
 */
import { isJsonObject } from '@svc/core'
import type { AnswerFix, FixedEvent } from './answer-fix-types'

type Body = Record<string, unknown>

export function responsesFix(request: Body): AnswerFix {
  const limit = typeof request.max_output_tokens === 'number' ? request.max_output_tokens : undefined
  const echoed: Body = {
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    tools: request.tools ?? [],
    tool_choice: request.tool_choice ?? 'auto',
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    metadata: request.metadata ?? {},
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    max_output_tokens: limit ?? null,
    output: [],
  }
  /** The response object, completed: the required fields, and the cut when there was one. */
  const complete = (response: Body, final: boolean): boolean => {
    for (const key in echoed) if (response[key] === undefined) response[key] = echoed[key]
    if (typeof response.created_at !== 'number') response.created_at = Math.floor(Date.now() / 1000)
    if (!final) return false
    const usage = isJsonObject(response.usage) ? response.usage : undefined
    const output = Array.isArray(response.output) ? (response.output as Body[]) : []
    if (
      usage &&
      usage.output_tokens_details === undefined &&
      !output.some((item) => item?.type === 'reasoning')
    ) {
      usage.output_tokens_details = { reasoning_tokens: 0 }
    }
    const cut =
      limit !== undefined && typeof usage?.output_tokens === 'number' && usage.output_tokens >= limit
    if (!cut) return false
    response.status = 'incomplete'
    response.incomplete_details = { reason: 'max_output_tokens' }
    response.completed_at = null
    for (const item of output) if (isJsonObject(item) && item.type === 'message') item.status = 'incomplete'
    return true
  }

  let sequence = 0
  const indexes = new Map<string, number>()
  const indexOf = (id: unknown): number => {
    if (typeof id !== 'string') return 0
    let index = indexes.get(id)
    if (index === undefined) {
      index = indexes.size
      indexes.set(id, index)
    }
    return index
  }
  /** Items whose content part was announced (`response.content_part.added`). */
  const opened = new Set<unknown>()
  const numbered = (event: FixedEvent): FixedEvent => {
    event.data.sequence_number = sequence++
    return event
  }

  return {
    json(body) {
      complete(body, true)
      return body
    },
    event(event) {
      const { data } = event
      const type = data.type
      if (type === 'response.created' || type === 'response.in_progress' || type === 'response.completed') {
        if (isJsonObject(data.response) && complete(data.response, type === 'response.completed')) {
          data.type = 'response.incomplete'
          if (event.event) event.event = 'response.incomplete'
        }
        return [numbered(event)]
      }
      if (type === 'response.output_item.added' || type === 'response.output_item.done') {
        const item = isJsonObject(data.item) ? data.item : {}
        if (data.output_index === undefined) data.output_index = indexOf(item.id)
        return [numbered(event)]
      }
      if (typeof type !== 'string' || data.item_id === undefined) return [numbered(event)]
      if (data.output_index === undefined) data.output_index = indexOf(data.item_id)
      if (data.content_index === undefined && !type.startsWith('response.function_call')) {
        data.content_index = 0
      }
      if (type === 'response.content_part.added') {
        opened.add(data.item_id)
        if (isJsonObject(data.part) && data.part.type === 'output_text') data.part.annotations ??= []
      }
      const events: FixedEvent[] = []
      if (type === 'response.reasoning_text.delta' && !opened.has(data.item_id)) {
        // The part its deltas go into, which the engine never announces.
        opened.add(data.item_id)
        const added = {
          type: 'response.content_part.added',
          item_id: data.item_id,
          output_index: data.output_index,
          content_index: data.content_index,
          part: { type: 'reasoning_text', text: '' },
        }
        events.push(numbered(event.event ? { event: added.type, data: added } : { data: added }))
      }
      events.push(numbered(event))
      return events
    },
  }
}
