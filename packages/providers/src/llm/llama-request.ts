/**
 * What llama-server would otherwise ignore, carried to the fields it honours (the provider's
 * `prepareBody`). Read from its source: `/v1/responses` is converted to a chat body that keeps
 * every other field, so `response_format` works there but `text.format` is dropped; `tool_choice`
 * is read as a string only (an object falls back to `"auto"`), and Anthropic's `{type:"tool"}`
 * becomes `"required"` without the name. So:
 *
 * - Responses `input` items the spec allows but the engine refuses (an assistant message without
 *   `type`, a reasoning item without `content`): `responses-input.ts`.
 * - Responses `text.format` (`json_schema`, `json_object`) → `response_format`, unless one is set.
 * - A `tool_choice` that names one function (chat, Responses) or tool (Messages) → `"required"`
 *   with `tools` narrowed to that one, so the grammar can only produce a call to it. A name that
 *   is not among `tools` is 400 `request.invalid` (`param: tool_choice`).
 *
 * Returns the body to send instead, or undefined when nothing needs carrying (the usual case: no
 * copy, the client's bytes go upstream as they came).
 */
import { type Endpoint, isJsonObject, SvcError } from '@svc/core'
import { responsesInput } from './responses-input'

type Body = Record<string, unknown>

export function carryToLlamaServer(endpoint: Endpoint, body: Body): Body | undefined {
  switch (endpoint) {
    case 'chat':
    case 'chat-input-tokens':
      return forceNamedTool(body, namedChatTool(body.tool_choice), (t) => nameOf(t.function))
    case 'responses':
    case 'responses-input-tokens': {
      const input = responsesInput(body.input)
      const typed = input ? { ...body, input } : undefined
      const formatted = carryTextFormat(typed ?? body) ?? typed
      const from = formatted ?? body
      return forceNamedTool(from, namedResponsesTool(body.tool_choice), nameOf) ?? formatted
    }
    case 'messages':
    case 'messages-count-tokens':
      return forceNamedTool(body, namedMessagesTool(body.tool_choice), nameOf, body.tool_choice)
    default:
      return undefined
  }
}

function nameOf(value: unknown): string | undefined {
  return isJsonObject(value) && typeof value.name === 'string' ? value.name : undefined
}

/** Chat: `{type:"function", function:{name}}`. */
function namedChatTool(choice: unknown): string | undefined {
  return isJsonObject(choice) && choice.type === 'function' ? nameOf(choice.function) : undefined
}

/** Responses: `{type:"function", name}`. */
function namedResponsesTool(choice: unknown): string | undefined {
  return isJsonObject(choice) && choice.type === 'function' ? nameOf(choice) : undefined
}

/** Messages: `{type:"tool", name}`. */
function namedMessagesTool(choice: unknown): string | undefined {
  return isJsonObject(choice) && choice.type === 'tool' ? nameOf(choice) : undefined
}

/**
 * Narrows `tools` to the named one and forces a call. Messages keep their `tool_choice` (the
 * engine turns `{type:"tool"}` into `"required"` itself); the others get `"required"`.
 */
function forceNamedTool(
  body: Body,
  name: string | undefined,
  toolName: (tool: Body) => string | undefined,
  keepChoice?: unknown,
): Body | undefined {
  if (name === undefined) return undefined
  const tools = Array.isArray(body.tools) ? body.tools : []
  const chosen = tools.filter((t) => isJsonObject(t) && toolName(t) === name)
  if (chosen.length === 0) {
    throw new SvcError('request.invalid', `tool_choice names "${name}", which is not among tools`, {
      param: 'tool_choice',
    })
  }
  return { ...body, tools: chosen, tool_choice: keepChoice ?? 'required' }
}

/** Responses `text.format` → the chat `response_format` the engine honours on that path. */
function carryTextFormat(body: Body): Body | undefined {
  if (!isJsonObject(body.text) || body.response_format !== undefined) return undefined
  const format = body.text.format
  if (!isJsonObject(format)) return undefined
  if (format.type === 'json_object') return { ...body, response_format: { type: 'json_object' } }
  if (format.type !== 'json_schema') return undefined
  const { type: _type, ...schema } = format
  return { ...body, response_format: { type: 'json_schema', json_schema: schema } }
}
