/**
 * The official clients over the conformance tables' requests: every request a table sends that svc
 * answers 200 goes again through `openai` (chat, Responses) and `@anthropic-ai/sdk` (Messages),
 * as one answer and through the SDKs' stream helpers (which accumulate events by their indexes and
 * throw on a stream that breaks the spec), against both targets. The typed fields a client reads
 * must hold values of their declared types.
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { CHAT_TABLE } from './chat.table'
import { type ConformanceRow, type ConformanceTarget, sendConformance, type TargetKind } from './conformance'
import { MESSAGES_TABLE } from './messages.table'
import { RESPONSES_TABLE } from './responses.table'
import { conformanceTargets } from './targets'

const targets = conformanceTargets()

const RESPONSE_STATUS = ['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete']
const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call']

type Body = Record<string, unknown>

/** The requests of a table that svc answers 200 (sent raw first), with `model` and without `stream`. */
async function acceptedBodies(table: readonly ConformanceRow[], path: string, target: ConformanceTarget) {
  const bodies: Body[] = []
  for (const row of table) {
    if (row.only !== undefined && row.only !== target.kind) continue
    const request = typeof row.request === 'function' ? await row.request(target) : row.request
    if (request.path !== path || !request.body) continue
    const { stream: _stream, ...body }: Body = { model: target.model, ...request.body }
    if ((await sendConformance(target, { ...request, body, stream: false })).status === 200) bodies.push(body)
  }
  return bodies
}

function checkResponse(r: OpenAI.Responses.Response): void {
  expect(RESPONSE_STATUS).toContain(r.status)
  expect(typeof r.output_text).toBe('string')
  expect(r.id).toMatch(/^resp_/)
  for (const item of r.output) expect(['message', 'function_call', 'reasoning']).toContain(item.type)
  expect(r.usage?.output_tokens).toEqual(expect.any(Number))
  if (r.status === 'incomplete') expect(r.incomplete_details?.reason).toBe('max_output_tokens')
  else expect(r.incomplete_details).toBeNull()
}

function checkMessage(m: Anthropic.Message): void {
  expect(m.type).toBe('message')
  expect(STOP_REASONS).toContain(m.stop_reason)
  for (const block of m.content) expect(['text', 'thinking', 'tool_use']).toContain(block.type)
  expect(m.usage.output_tokens).toEqual(expect.any(Number))
  expect(m.usage.input_tokens).toEqual(expect.any(Number))
  if (m.stop_reason === 'stop_sequence') expect(typeof m.stop_sequence).toBe('string')
}

function checkChat(c: OpenAI.Chat.ChatCompletion): void {
  expect(c.object).toBe('chat.completion')
  expect(FINISH_REASONS).toContain(c.choices[0]?.finish_reason)
  expect(typeof c.choices[0]?.message.content).toBe('string')
}

function sdkRows(kind: TargetKind) {
  const target = () => targets.of(kind)
  const openai = () => new OpenAI({ baseURL: `${target().url}/v1`, apiKey: 'unused', maxRetries: 0 })
  const anthropic = () => new Anthropic({ baseURL: target().url, apiKey: 'unused', maxRetries: 0 })

  it('openai responses.create and responses.stream parse every Responses answer', async () => {
    const bodies = await acceptedBodies(RESPONSES_TABLE, '/v1/responses', target())
    expect(bodies.length).toBeGreaterThan(5)
    for (const body of bodies) {
      checkResponse(
        await openai().responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming),
      )
      const stream = openai().responses.stream(
        body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming,
      )
      let text = ''
      stream.on('response.output_text.delta', (e) => {
        text += e.delta
      })
      const final = await stream.finalResponse()
      checkResponse(final)
      expect(final.output_text).toBe(text)
    }
  }, 120_000)

  it('anthropic messages.create and messages.stream parse every Messages answer', async () => {
    const bodies = await acceptedBodies(MESSAGES_TABLE, '/v1/messages', target())
    expect(bodies.length).toBeGreaterThan(4)
    for (const body of bodies) {
      const params = body as unknown as Anthropic.MessageCreateParamsNonStreaming
      const m = await anthropic().messages.create(params)
      checkMessage(m)
      const final = await anthropic().messages.stream(params).finalMessage()
      checkMessage(final)
      expect(final.stop_reason).toBe(m.stop_reason)
      expect(final.stop_sequence).toBe(m.stop_sequence)
    }
  }, 120_000)

  it('openai chat.completions.create and chat.completions.stream parse every chat answer', async () => {
    const bodies = await acceptedBodies(CHAT_TABLE, '/v1/chat/completions', target())
    expect(bodies.length).toBeGreaterThan(4)
    for (const body of bodies) {
      checkChat(
        await openai().chat.completions.create(
          body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        ),
      )
      const stream = openai().chat.completions.stream(
        body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
      )
      checkChat(await stream.finalChatCompletion())
    }
  }, 120_000)
}

describe.skipIf(!targets.available)('the official clients over the tables, real llama-server', () => {
  sdkRows('llama-server')
})

describe('the official clients over the tables, the wrong-answering stand-in', () => {
  sdkRows('wrong-engine')
})
