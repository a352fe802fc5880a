/**
 * Reads an OpenAI chat or completions answer (one JSON body, or an SSE stream of chunks) as the
 * pieces Ollama's answers are made of: text, thinking, tool calls (with `arguments` parsed into an
 * object, Ollama's shape), the finish reason, usage and the engine's timings.
 */
import { readSse, SvcError } from '@svc/core'
import type { EngineTimings, OpenAiUsage } from './stats'

export interface OllamaToolCall {
  id?: string
  function: { index: number; name: string; arguments: Record<string, unknown> }
}

export interface AnswerPiece {
  content?: string
  thinking?: string
  toolCalls?: OllamaToolCall[]
  /** Set on the last piece. */
  finish?: string | null
  usage?: OpenAiUsage
  timings?: EngineTimings
}

interface Choice {
  text?: string
  message?: Delta
  delta?: Delta
  finish_reason?: string | null
}
interface Delta {
  content?: string | null
  reasoning_content?: string | null
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[]
}
interface OpenAiAnswer {
  choices?: Choice[]
  usage?: OpenAiUsage
  timings?: EngineTimings
  error?: { message?: string }
}

/** A whole (non-streamed) answer as one piece. */
export async function wholeAnswer(response: Response): Promise<AnswerPiece> {
  const answer = (await response.json()) as OpenAiAnswer
  const choice = answer.choices?.[0]
  const message = choice?.message
  const calls = (message?.tool_calls ?? []).map((call, i) =>
    toolCall(i, call.id, call.function?.name, call.function?.arguments),
  )
  return {
    content: message?.content ?? choice?.text ?? '',
    ...(message?.reasoning_content ? { thinking: message.reasoning_content } : {}),
    ...(calls.length > 0 ? { toolCalls: calls } : {}),
    finish: choice?.finish_reason ?? 'stop',
    ...(answer.usage ? { usage: answer.usage } : {}),
    ...(answer.timings ? { timings: answer.timings } : {}),
  }
}

/**
 * A streamed answer, piece by piece. Tool calls arrive in fragments; they are gathered and given in
 * one piece when the answer ends (Ollama sends a call whole). An error event mid-stream is thrown.
 */
export async function* streamedAnswer(response: Response): AsyncGenerator<AnswerPiece> {
  const calls: { id?: string; name: string; args: string }[] = []
  let finish: string | null | undefined
  let usage: OpenAiUsage | undefined
  let timings: EngineTimings | undefined
  for await (const event of readSse(response.body!, { keepCutOff: true })) {
    if (event.data === '[DONE]') break
    const chunk = JSON.parse(event.data) as OpenAiAnswer
    if (chunk.error)
      throw new SvcError('upstream.error', chunk.error.message ?? 'the upstream failed mid-answer')
    if (chunk.usage) usage = chunk.usage
    if (chunk.timings) timings = chunk.timings
    const choice = chunk.choices?.[0]
    if (!choice) continue
    if (choice.finish_reason) finish = choice.finish_reason
    const delta = choice.delta
    for (const part of delta?.tool_calls ?? []) {
      const at = part.index ?? calls.length
      calls[at] ??= { name: '', args: '' }
      const call = calls[at]!
      if (part.id) call.id = part.id
      call.name += part.function?.name ?? ''
      call.args += part.function?.arguments ?? ''
    }
    const content = delta?.content ?? choice.text
    const thinking = delta?.reasoning_content
    if (content || thinking) yield { ...(content ? { content } : {}), ...(thinking ? { thinking } : {}) }
  }
  const toolCalls = calls.map((c, i) => toolCall(i, c.id, c.name, c.args))
  yield {
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    finish: finish ?? 'stop',
    ...(usage ? { usage } : {}),
    ...(timings ? { timings } : {}),
  }
}

function toolCall(index: number, id: string | undefined, name = '', args = ''): OllamaToolCall {
  return { ...(id ? { id } : {}), function: { index, name, arguments: parseArguments(args) } }
}

/** Ollama's tool arguments are an object; an engine's string that is no JSON object is kept whole. */
function parseArguments(args: string): Record<string, unknown> {
  if (!args.trim()) return {}
  try {
    const parsed = JSON.parse(args) as unknown
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>
  } catch {
    // not JSON: below
  }
  return { value: args }
}
