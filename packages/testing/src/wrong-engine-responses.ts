/**
 * The stand-in's `/v1/responses` (`wrong-engine.ts`), as llama-server converts and answers it
 * (tools/server/server-chat.cpp, server-task.cpp): an item with a role but no `type` is refused
 * unless its role is user, system or developer (`Cannot determine type of 'item'`); a reasoning
 * item needs a non-empty `content`. The answer's status is `completed` whatever stopped it (no
 * `incomplete_details`), and its stream events carry no `sequence_number` or `output_index`; a
 * reasoning item's deltas come with no `response.content_part.added` before them.
 *
 * It "reasons" when the request has `reasoning.effort` (a reasoning item first, `reasoning_text`
 * deltas), and calls the first function tool, arguments `{}`, when `tool_choice` is `"required"`
 * (what svc makes of a `tool_choice` naming one).
 */
import { isJsonObject } from '@svc/core'
import { type Body, generate, now, rand, type SseOut } from './wrong-engine-answers'

const REASONING = 'The user tells a joke.'

export function responsesAnswer(
  body: Body,
  model: string,
): { error?: string; json?: unknown; events?: SseOut[] } {
  const refused = refusedInput(body.input)
  if (refused) return { error: refused }
  const g = generate(body, body.max_output_tokens, body.stop)
  const id = `resp_${rand()}`
  const msgId = `msg_${rand()}`
  const rsId = `rs_${rand()}`
  const reasons = isJsonObject(body.reasoning) && body.reasoning.effort !== undefined
  const tool =
    body.tool_choice === 'required' && Array.isArray(body.tools) ? (body.tools[0] as Body) : undefined
  const callId = rand()
  const part = { type: 'output_text', annotations: [], logprobs: [], text: g.text }
  const message = { type: 'message', status: 'completed', id: msgId, content: [part], role: 'assistant' }
  const reasoning = {
    id: rsId,
    summary: [],
    type: 'reasoning',
    content: [{ text: REASONING, type: 'reasoning_text' }],
    encrypted_content: '',
  }
  const call = tool && {
    id: `fc_${callId}`,
    type: 'function_call',
    status: 'completed',
    arguments: '{}',
    call_id: `call_${callId}`,
    name: tool.name,
  }
  const output = [...(reasons ? [reasoning] : []), ...(call ? [call] : [message])]
  const usage = {
    input_tokens: g.promptTokens,
    output_tokens: g.outputTokens,
    total_tokens: g.promptTokens + g.outputTokens,
    input_tokens_details: { cached_tokens: 0 },
  }
  const response = { id, object: 'response', created_at: now(), status: 'completed', model, output, usage }
  if (!body.stream) return { json: { ...response, completed_at: now() } }

  const started = { id, object: 'response', status: 'in_progress' }
  const ev = (type: string, data: Body): SseOut => ({ event: type, data: { type, ...data } })
  const events: SseOut[] = [
    ev('response.created', { response: started }),
    ev('response.in_progress', { response: started }),
  ]
  if (reasons) {
    events.push(
      ev('response.output_item.added', { item: { ...reasoning, content: [], status: 'in_progress' } }),
    )
    for (const piece of REASONING.split(/(?= )/)) {
      events.push(ev('response.reasoning_text.delta', { delta: piece, item_id: rsId }))
    }
  }
  if (call) {
    events.push(ev('response.output_item.added', { item: { ...call, arguments: '', status: 'in_progress' } }))
    events.push(ev('response.function_call_arguments.delta', { delta: '{}', item_id: call.id }))
  } else {
    events.push(
      ev('response.output_item.added', { item: { ...message, status: 'in_progress', content: [] } }),
      ev('response.content_part.added', { item_id: msgId, part: { type: 'output_text', text: '' } }),
    )
    for (const piece of g.text.split(/(?= )/)) {
      if (piece) events.push(ev('response.output_text.delta', { item_id: msgId, delta: piece }))
    }
  }
  if (reasons) events.push(ev('response.output_item.done', { item: reasoning }))
  if (!call) {
    events.push(
      ev('response.output_text.done', { item_id: msgId, text: g.text }),
      ev('response.content_part.done', { item_id: msgId, part }),
      ev('response.output_item.done', { item: message }),
    )
  } else events.push(ev('response.output_item.done', { item: call }))
  events.push(ev('response.completed', { response }))
  return { events }
}

/** The engine's reading of Responses input items: its error message, or undefined when it takes them. */
function refusedInput(input: unknown): string | undefined {
  if (input === undefined) return "'input' is required"
  if (typeof input === 'string') return undefined
  if (!Array.isArray(input)) return "'input' must be a string or array of objects"
  for (const item of input as Body[]) {
    const inputRole = item.role === 'user' || item.role === 'system' || item.role === 'developer'
    if (inputRole && item.content !== undefined) continue
    if (item.role === 'assistant' && item.type === 'message') continue
    if (item.type === 'function_call' || item.type === 'function_call_output') continue
    if (item.type === 'reasoning' && Array.isArray(item.summary)) {
      if (!Array.isArray(item.content)) return "item['content'] is not an array"
      if (item.content.length === 0) return "item['content'] is empty"
      continue
    }
    return "Cannot determine type of 'item'"
  }
  return undefined
}
