/**
 * Anthropic Messages, by the rules of Anthropic's Messages API reference (`POST /v1/messages`: the
 * Message object, `stop_reason`, `usage`, and the streaming events `message_start`,
 * `content_block_*`, `message_delta`, `message_stop`).
 */
import { expect } from 'vitest'
import { type ConformanceRow, eventsOf } from './conformance'
import { countedBy, greedyText, stopStringFrom } from './probe'
import { reachesEngineUntouched } from './untouched'

const PATH = '/v1/messages'
const KNOCK = [{ role: 'user', content: 'Knock knock.' }]
const HEADERS = { 'anthropic-version': '2023-06-01' }

/** A request whose stop sequence the target's engine surely writes (greedy text, temperature 0). */
const stopped = (stream: boolean) => async (target: Parameters<typeof greedyText>[0]) => ({
  path: PATH,
  headers: HEADERS,
  stream,
  body: {
    messages: KNOCK,
    max_tokens: 12,
    temperature: 0,
    stop_sequences: ['never-written-stop', stopStringFrom(await greedyText(target))],
  },
})

export const MESSAGES_TABLE: readonly ConformanceRow[] = [
  {
    rule: 'Message: type "message", role "assistant", an id, model, content blocks of type "text"',
    request: { path: PATH, headers: HEADERS, body: { messages: KNOCK, max_tokens: 3 } },
    expect: ({ status, body }) => {
      expect(status).toBe(200)
      expect(body).toMatchObject({
        type: 'message',
        role: 'assistant',
        id: expect.any(String),
        model: expect.any(String),
      })
      expect(body.content[0]).toMatchObject({ type: 'text', text: expect.any(String) })
    },
  },
  {
    rule: 'stop_reason "stop_sequence": "one of your provided custom stop_sequences was generated"; stop_sequence names it (issue 38, case 3)',
    request: stopped(false),
    expect: async ({ body }, target) => {
      expect(body.stop_reason).toBe('stop_sequence')
      expect(body.stop_sequence).toBe(stopStringFrom(await greedyText(target)))
      expect(body.usage.output_tokens).toBeLessThan(12)
    },
  },
  {
    rule: 'stream: message_delta carries stop_reason "stop_sequence" and the stop_sequence when one was hit (issue 38, case 3)',
    request: stopped(true),
    expect: async (answer, target) => {
      const delta = eventsOf(answer, 'message_delta')
      expect(delta).toHaveLength(1)
      expect(delta[0]?.data.delta).toEqual({
        stop_reason: 'stop_sequence',
        stop_sequence: stopStringFrom(await greedyText(target)),
      })
    },
  },
  {
    rule: 'stop_reason "max_tokens": "we exceeded the requested max_tokens"; stop_sequence null',
    request: {
      path: PATH,
      headers: HEADERS,
      body: { messages: KNOCK, max_tokens: 3, stop_sequences: ['never-written-stop'] },
    },
    expect: ({ body }) => {
      expect(body.stop_reason).toBe('max_tokens')
      expect(body.stop_sequence).toBeNull()
      expect(body.usage.output_tokens).toBe(3)
    },
  },
  {
    rule: 'stream, max_tokens reached: message_delta stop_reason "max_tokens", stop_sequence null',
    request: { path: PATH, headers: HEADERS, stream: true, body: { messages: KNOCK, max_tokens: 3 } },
    expect: (answer) => {
      expect(eventsOf(answer, 'message_delta')[0]?.data.delta).toEqual({
        stop_reason: 'max_tokens',
        stop_sequence: null,
      })
    },
  },
  {
    rule: 'usage: input_tokens and output_tokens (the tokens written)',
    request: { path: PATH, headers: HEADERS, body: { messages: KNOCK, max_tokens: 3 } },
    expect: ({ body }) => {
      expect(body.usage.input_tokens).toBeGreaterThan(0)
      expect(body.usage.output_tokens).toBe(3)
    },
  },
  {
    rule: "stream: message_start (its message's usage has input_tokens), content_block_start/delta/stop, message_delta (usage.output_tokens), message_stop — in that order",
    request: { path: PATH, headers: HEADERS, stream: true, body: { messages: KNOCK, max_tokens: 3 } },
    expect: (answer) => {
      const types = answer.events.map((e) => e.data.type)
      expect(types[0]).toBe('message_start')
      expect(types.at(-1)).toBe('message_stop')
      expect(types.at(-2)).toBe('message_delta')
      expect(types).toContain('content_block_delta')
      expect(types.indexOf('content_block_start')).toBeLessThan(types.indexOf('content_block_delta'))
      expect(types.lastIndexOf('content_block_stop')).toBeLessThan(types.indexOf('message_delta'))
      expect(answer.events[0]?.data.message.usage.input_tokens).toBeGreaterThan(0)
      expect(eventsOf(answer, 'message_delta')[0]?.data.usage.output_tokens).toBe(3)
      for (const e of answer.events) expect(e.event).toBe(e.data.type)
    },
  },
  {
    rule: 'stream: message_delta usage is cumulative (MessageDeltaUsage: "the cumulative number of input tokens which were used"): input_tokens as in message_start',
    request: { path: PATH, headers: HEADERS, stream: true, body: { messages: KNOCK, max_tokens: 3 } },
    expect: (answer) => {
      const start = answer.events[0]?.data.message.usage
      const usage = eventsOf(answer, 'message_delta')[0]?.data.usage
      expect(usage).toMatchObject({ input_tokens: start.input_tokens, output_tokens: 3 })
    },
  },
  {
    rule: 'svc counts the tokens of a Messages answer (its token metric, what quotas read)',
    ...countedBy(
      { path: PATH, headers: HEADERS, body: { messages: KNOCK, max_tokens: 3 } },
      (a) => a.body.usage.output_tokens,
    ),
  },
  {
    rule: 'svc counts the tokens of a streamed Messages answer',
    ...countedBy(
      { path: PATH, headers: HEADERS, stream: true, body: { messages: KNOCK, max_tokens: 3 } },
      (a) => eventsOf(a, 'message_delta')[0]?.data.usage.output_tokens,
    ),
  },
  {
    rule: 'a {"role":"system"} item inside messages, thinking {type:"adaptive"}, output_config and context_management (beta mid-conversation-system) are not refused by svc (issue 38, case 5)',
    request: {
      path: PATH,
      headers: { ...HEADERS, 'anthropic-beta': 'mid-conversation-system-2026-04-07' },
      body: {
        messages: [
          { role: 'user', content: 'Knock knock.' },
          { role: 'assistant', content: 'Who is there?' },
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [{ type: 'text', text: 'Orange.', cache_control: { type: 'ephemeral' } }],
          },
        ],
        max_tokens: 3,
        thinking: { type: 'adaptive' },
        output_config: { effort: 'high' },
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      },
    },
    expect: ({ status, body }) => {
      expect(status, JSON.stringify(body)).toBe(200)
      expect(body.type).toBe('message')
    },
  },
  {
    rule: 'unknown fields, beta values, new roles and the beta header reach the engine untouched',
    only: 'wrong-engine',
    ...reachesEngineUntouched({
      path: PATH,
      headers: HEADERS,
      untouchedHeaders: { 'anthropic-beta': 'mid-conversation-system-2026-04-07' },
      body: { max_tokens: 3 },
      untouched: {
        messages: [
          { role: 'user', content: 'Knock knock.' },
          { role: 'system', content: 'Be brief.' },
          { role: 'narrator', content: [{ type: 'future_block', data: 1 }] },
        ],
        thinking: { type: 'adaptive' },
        output_config: { effort: 'high' },
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        future_field: true,
      },
    }),
  },
  {
    rule: "what the spec forbids is still refused: messages must be an array (400 invalid_request_error, Anthropic's error shape)",
    request: { path: PATH, headers: HEADERS, body: { messages: 'hi', max_tokens: 3 } },
    expect: ({ status, body }) => {
      expect(status).toBe(400)
      expect(body.type).toBe('error')
      expect(body.error.type).toBe('invalid_request_error')
    },
  },
  {
    rule: 'count_tokens: {input_tokens} for the same body',
    request: { path: '/v1/messages/count_tokens', headers: HEADERS, body: { messages: KNOCK } },
    expect: ({ status, body }) => {
      expect(status).toBe(200)
      expect(body.input_tokens).toBeGreaterThan(0)
    },
  },
]
