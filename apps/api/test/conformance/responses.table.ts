/**
 * OpenAI Responses, by the rules of OpenAI's OpenAPI document (`CreateResponse`, `InputItem`,
 * `Response`, `ResponseUsage`, `ResponseStreamEvent`). svc keeps no responses: every conversation
 * comes whole in `input`, with every input item kind the spec lists.
 */
import { expect } from 'vitest'
import { type ConformanceAnswer, type ConformanceRow, eventsOf } from './conformance'
import { countedBy, greedyText, stopStringFrom } from './probe'
import { reachesEngineUntouched } from './untouched'

const PATH = '/v1/responses'
const WEATHER = [
  {
    type: 'function',
    name: 'weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
]
const KNOCK = [
  { role: 'user', content: 'knock knock.' },
  { role: 'assistant', content: 'Who is there?' },
  { role: 'user', content: 'Orange.' },
]

function ok({ status, body }: ConformanceAnswer): void {
  expect(status).toBe(200)
  expect(body).toMatchObject({ object: 'response', id: expect.stringMatching(/^resp_/) })
  const message = body.output.find((item: { type: string }) => item.type === 'message')
  expect(message).toMatchObject({ type: 'message', role: 'assistant', id: expect.stringMatching(/^msg_/) })
  expect(message.content[0]).toMatchObject({ type: 'output_text', text: expect.any(String) })
}

export const RESPONSES_TABLE: readonly ConformanceRow[] = [
  {
    rule: 'Response: "object": "response", id resp_…, an output item {type: "message", role: "assistant", content: [{type: "output_text"}]}',
    request: { path: PATH, body: { input: 'Knock knock.', max_output_tokens: 3 } },
    expect: ok,
  },
  {
    rule: 'EasyInputMessage: items with role and content and no `type` ("type … Always `message`", optional), assistant included (issue 38, case 2)',
    request: { path: PATH, body: { input: KNOCK, max_output_tokens: 3 } },
    expect: ok,
  },
  {
    rule: 'InputMessage / OutputMessage: content as part arrays (input_text; the assistant\'s output_text), with and without `type: "message"`',
    request: {
      path: PATH,
      body: {
        input: [
          { role: 'developer', content: [{ type: 'input_text', text: 'Answer briefly.' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'knock knock.' }] },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Who is there?', annotations: [] }] },
          {
            type: 'message',
            role: 'assistant',
            id: 'msg_1',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Go on.', annotations: [] }],
          },
          { type: 'message', role: 'user', content: 'Orange.' },
        ],
        max_output_tokens: 3,
      },
    },
    expect: ok,
  },
  {
    rule: 'FunctionToolCall and FunctionCallOutputItemParam: a call and its output echoed back in `input` (string and part-array output)',
    request: {
      path: PATH,
      body: {
        input: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_1',
            name: 'weather',
            arguments: '{"city":"Paris"}',
            status: 'completed',
          },
          { type: 'function_call', call_id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Rain' }] },
        ],
        tools: [
          {
            type: 'function',
            name: 'weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
        max_output_tokens: 3,
      },
    },
    expect: ok,
  },
  {
    rule: 'ReasoningItem as clients echo it back: {type: "reasoning", id, summary, encrypted_content} ("content" optional) — with a summary, with an empty one, and with content',
    request: {
      path: PATH,
      body: {
        input: [
          { role: 'user', content: 'knock knock.' },
          {
            type: 'reasoning',
            id: 'rs_1',
            summary: [{ type: 'summary_text', text: 'A joke.' }],
            encrypted_content: 'opaque',
          },
          { role: 'assistant', content: 'Who is there?' },
          { role: 'user', content: 'Orange.' },
          { type: 'reasoning', id: 'rs_2', summary: [] },
          {
            type: 'reasoning',
            id: 'rs_3',
            summary: [],
            content: [{ type: 'reasoning_text', text: 'Still a joke.' }],
          },
          { role: 'assistant', content: 'Orange who?' },
          { role: 'user', content: 'Orange you glad?' },
        ],
        max_output_tokens: 3,
      },
    },
    expect: ok,
  },
  {
    rule: 'ItemReferenceParam names a stored item; svc keeps none: 400 request.invalid naming input[i]',
    request: {
      path: PATH,
      body: {
        input: [
          { role: 'user', content: 'hi' },
          { type: 'item_reference', id: 'msg_123' },
        ],
      },
    },
    expect: ({ status, body }) => {
      expect(status).toBe(400)
      expect(body.error).toMatchObject({ code: 'request.invalid', param: 'input[1]' })
    },
  },
  {
    rule: 'max_output_tokens reached: status "incomplete", incomplete_details.reason "max_output_tokens", completed_at null',
    request: { path: PATH, body: { input: 'Knock knock.', max_output_tokens: 3 } },
    expect: ({ body }) => {
      expect(body.status).toBe('incomplete')
      expect(body.incomplete_details).toEqual({ reason: 'max_output_tokens' })
      expect(body.completed_at ?? null).toBeNull()
      expect(body.usage.output_tokens).toBe(3)
    },
  },
  {
    rule: 'an answer that ended before max_output_tokens (llama.cpp\'s `stop`, passed through): status "completed", incomplete_details null',
    request: async (target) => ({
      path: PATH,
      body: {
        input: 'Knock knock.',
        max_output_tokens: 12,
        temperature: 0,
        stop: [stopStringFrom(await greedyText(target))],
      },
    }),
    expect: ({ body }) => {
      expect(body.status).toBe('completed')
      expect(body.incomplete_details).toBeNull()
      expect(body.usage.output_tokens).toBeLessThan(12)
    },
  },
  {
    rule: 'ResponseUsage: input_tokens, output_tokens, total_tokens = input + output, input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens',
    request: { path: PATH, body: { input: 'Knock knock.', max_output_tokens: 2 } },
    expect: ({ body }) => {
      const u = body.usage
      expect(u.input_tokens).toBeGreaterThan(0)
      expect(u.output_tokens).toBe(2)
      expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens)
      expect(u.input_tokens_details.cached_tokens).toEqual(expect.any(Number))
      expect(u.output_tokens_details.reasoning_tokens).toBe(0)
    },
  },
  {
    rule: 'Response: the required fields are there (error, incomplete_details, instructions, model, tools, output, parallel_tool_calls, metadata, tool_choice, temperature, top_p), echoing the request',
    request: {
      path: PATH,
      body: { input: 'Hi', instructions: 'Be brief.', max_output_tokens: 2, metadata: { k: 'v' } },
    },
    expect: ({ body }) => {
      expect(body).toMatchObject({ error: null, instructions: 'Be brief.', tools: [], metadata: { k: 'v' } })
      for (const key of [
        'model',
        'output',
        'parallel_tool_calls',
        'tool_choice',
        'temperature',
        'top_p',
        'created_at',
      ]) {
        expect(body, key).toHaveProperty(key)
      }
    },
  },
  {
    rule: 'stream: every event has sequence_number (0, 1, 2, …); the first is response.created, whose response has an output array',
    request: { path: PATH, stream: true, body: { input: 'Knock knock.', max_output_tokens: 3 } },
    expect: (answer) => {
      const events = answer.events.map((e) => e.data)
      expect(events[0].type).toBe('response.created')
      expect(events[0].response.output).toEqual([])
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    },
  },
  {
    rule: 'stream: output_item.added, content_part.added and output_text.delta carry output_index and content_index (what clients accumulate by)',
    request: { path: PATH, stream: true, body: { input: 'Knock knock.', max_output_tokens: 3 } },
    expect: (answer) => {
      const added = eventsOf(answer, 'response.output_item.added')
      expect(added[0]?.data.output_index).toBe(0)
      for (const e of eventsOf(answer, 'response.output_text.delta')) {
        expect(e.data).toMatchObject({
          output_index: 0,
          content_index: 0,
          item_id: expect.stringMatching(/^msg_/),
        })
      }
      expect(eventsOf(answer, 'response.content_part.added')[0]?.data).toMatchObject({
        output_index: 0,
        content_index: 0,
      })
    },
  },
  {
    rule: 'stream, max_output_tokens reached: it ends with response.incomplete (status "incomplete", reason "max_output_tokens") carrying usage',
    request: { path: PATH, stream: true, body: { input: 'Knock knock.', max_output_tokens: 3 } },
    expect: (answer) => {
      const last = answer.events.at(-1)
      expect(last?.data.type).toBe('response.incomplete')
      expect(last?.data.response).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: { output_tokens: 3 },
      })
      expect(eventsOf(answer, 'response.completed')).toEqual([])
    },
  },
  {
    rule: 'stream, ended before max_output_tokens: response.completed (status "completed") carrying usage',
    request: async (target) => ({
      path: PATH,
      stream: true,
      body: {
        input: 'Knock knock.',
        max_output_tokens: 12,
        temperature: 0,
        stop: [stopStringFrom(await greedyText(target))],
      },
    }),
    expect: (answer) => {
      const last = answer.events.at(-1)
      expect(last?.data.type).toBe('response.completed')
      expect(last?.data.response.status).toBe('completed')
      expect(last?.data.response.usage.output_tokens).toBeLessThan(12)
    },
  },
  {
    rule: 'FunctionToolCall output: {type: "function_call", id fc_…, call_id call_…, name, arguments} (a tool_choice naming the function)',
    only: 'wrong-engine',
    request: {
      path: PATH,
      body: { input: 'Weather?', tools: WEATHER, tool_choice: { type: 'function', name: 'weather' } },
    },
    expect: ({ body }) => {
      const call = body.output.find((item: { type: string }) => item.type === 'function_call')
      expect(call).toMatchObject({
        id: expect.stringMatching(/^fc_/),
        call_id: expect.stringMatching(/^call_/),
        name: 'weather',
        arguments: expect.any(String),
      })
    },
  },
  {
    rule: "stream, a function call: output_item.added and function_call_arguments.delta carry the call's output_index",
    only: 'wrong-engine',
    request: {
      path: PATH,
      stream: true,
      body: { input: 'Weather?', tools: WEATHER, tool_choice: { type: 'function', name: 'weather' } },
    },
    expect: (answer) => {
      const added = eventsOf(answer, 'response.output_item.added')[0]?.data
      expect(added).toMatchObject({ output_index: 0, item: { type: 'function_call' } })
      const deltas = eventsOf(answer, 'response.function_call_arguments.delta')
      expect(deltas.length).toBeGreaterThan(0)
      for (const d of deltas) expect(d.data).toMatchObject({ output_index: 0, item_id: added.item.id })
    },
  },
  {
    rule: 'stream, a reasoning item: response.content_part.added (reasoning_text) announces its part before the first reasoning_text.delta; reasoning at output_index 0, the message at 1',
    only: 'wrong-engine',
    request: {
      path: PATH,
      stream: true,
      body: { input: 'Knock knock.', max_output_tokens: 3, reasoning: { effort: 'low' } },
    },
    expect: (answer) => {
      const types = answer.events.map((e) => e.data.type)
      const firstDelta = types.indexOf('response.reasoning_text.delta')
      expect(firstDelta).toBeGreaterThan(0)
      expect(answer.events[firstDelta - 1]?.data).toMatchObject({
        type: 'response.content_part.added',
        output_index: 0,
        content_index: 0,
        part: { type: 'reasoning_text' },
      })
      for (const d of eventsOf(answer, 'response.reasoning_text.delta')) expect(d.data.output_index).toBe(0)
      for (const d of eventsOf(answer, 'response.output_text.delta')) expect(d.data.output_index).toBe(1)
    },
  },
  {
    rule: 'svc counts the tokens of a Responses answer (its token metric, what quotas read)',
    ...countedBy(
      { path: PATH, body: { input: 'Knock knock.', max_output_tokens: 3 } },
      (a) => a.body.usage.output_tokens,
    ),
  },
  {
    rule: 'svc counts the tokens of a streamed Responses answer',
    ...countedBy(
      { path: PATH, stream: true, body: { input: 'Knock knock.', max_output_tokens: 3 } },
      (a) => a.events.at(-1)?.data.response.usage.output_tokens,
    ),
  },
  {
    rule: 'input_tokens: {object: "response.input_tokens", input_tokens} for the same body, the short-form conversation included',
    request: { path: '/v1/responses/input_tokens', body: { input: KNOCK } },
    expect: ({ status, body }) => {
      expect(status).toBe(200)
      expect(body.input_tokens).toBeGreaterThan(0)
    },
  },
  {
    rule: 'svc keeps no responses: store true and previous_response_id are 400 request.invalid naming the field',
    request: { path: PATH, body: { input: 'hi', previous_response_id: 'resp_1' } },
    expect: ({ status, body }) => {
      expect(status).toBe(400)
      expect(body.error).toMatchObject({ code: 'request.invalid', param: 'previous_response_id' })
    },
  },
  {
    rule: 'unknown fields and beta values reach the engine untouched (svc validates only what it must know)',
    only: 'wrong-engine',
    ...reachesEngineUntouched({
      path: PATH,
      body: { input: [{ role: 'user', content: 'hi' }], max_output_tokens: 2 },
      untouched: {
        reasoning: { effort: 'minimal', summary: 'auto' },
        text: { verbosity: 'low' },
        prompt_cache_key: 'k1',
        safety_identifier: 'u1',
        include: ['reasoning.encrypted_content'],
        future_field: { nested: [1, 2] },
      },
    }),
  },
]
