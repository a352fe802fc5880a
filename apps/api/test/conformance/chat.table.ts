/**
 * OpenAI chat/completions (and legacy completions), by the rules of OpenAI's OpenAPI document
 * (`CreateChatCompletionResponse`, `CreateChatCompletionStreamResponse`, `CompletionUsage`).
 */
import { expect } from 'vitest'
import { type ConformanceRow, eventsOf } from './conformance'
import { greedyText, stopStringFrom } from './probe'
import { reachesEngineUntouched } from './untouched'

const hi = [{ role: 'user', content: 'Knock knock.' }]

export const CHAT_TABLE: readonly ConformanceRow[] = [
  {
    rule: 'chat: "object": "chat.completion", an id, one choice with an assistant message (CreateChatCompletionResponse)',
    request: { path: '/v1/chat/completions', body: { messages: hi, max_tokens: 4 } },
    expect: ({ status, body }) => {
      expect(status).toBe(200)
      expect(body).toMatchObject({
        object: 'chat.completion',
        id: expect.any(String),
        created: expect.any(Number),
      })
      expect(body.choices).toHaveLength(1)
      expect(body.choices[0]).toMatchObject({
        index: 0,
        message: { role: 'assistant', content: expect.any(String) },
      })
    },
  },
  {
    rule: 'chat: max_tokens reached → finish_reason "length" ("if the maximum number of tokens specified in the request was reached")',
    request: { path: '/v1/chat/completions', body: { messages: hi, max_tokens: 3 } },
    expect: ({ body }) => {
      expect(body.choices[0].finish_reason).toBe('length')
      expect(body.usage.completion_tokens).toBe(3)
    },
  },
  {
    rule: 'chat: max_completion_tokens reached → finish_reason "length"',
    request: { path: '/v1/chat/completions', body: { messages: hi, max_completion_tokens: 2 } },
    expect: ({ body }) => {
      expect(body.choices[0].finish_reason).toBe('length')
      expect(body.usage.completion_tokens).toBe(2)
    },
  },
  {
    rule: 'chat: a stop sequence hit → finish_reason "stop" ("if the model hit a natural stop point or a provided stop sequence"), the stop text not returned',
    request: async (target) => {
      const stop = stopStringFrom(await greedyText(target))
      return {
        path: '/v1/chat/completions',
        body: { messages: hi, max_tokens: 12, temperature: 0, stop: [stop] },
      }
    },
    expect: ({ body }, _target) => {
      expect(body.choices[0].finish_reason).toBe('stop')
      expect(body.usage.completion_tokens).toBeLessThan(12)
    },
  },
  {
    rule: 'chat: usage {prompt_tokens, completion_tokens, total_tokens = prompt + completion} (CompletionUsage)',
    request: { path: '/v1/chat/completions', body: { messages: hi, max_tokens: 3 } },
    expect: ({ body }) => {
      const { prompt_tokens, completion_tokens, total_tokens } = body.usage
      expect(prompt_tokens).toBeGreaterThan(0)
      expect(completion_tokens).toBe(3)
      expect(total_tokens).toBe(prompt_tokens + completion_tokens)
    },
  },
  {
    rule: 'chat stream: "object": "chat.completion.chunk" chunks, the last one with finish_reason "length", then [DONE]',
    request: { path: '/v1/chat/completions', stream: true, body: { messages: hi, max_tokens: 3 } },
    expect: (answer) => {
      const chunks = answer.events.filter((e) => typeof e.data === 'object')
      expect(chunks.length).toBeGreaterThan(1)
      for (const c of chunks) expect(c.data.object).toBe('chat.completion.chunk')
      expect(chunks.at(-1)?.data.choices[0].finish_reason).toBe('length')
      expect(answer.events.at(-1)?.data).toBe('[DONE]')
    },
  },
  {
    rule: 'chat stream: stream_options.include_usage → "an additional chunk … before the data: [DONE] message … the choices field will always be an empty array", with usage; the others usage null or absent',
    request: {
      path: '/v1/chat/completions',
      stream: true,
      body: { messages: hi, max_tokens: 3, stream_options: { include_usage: true } },
    },
    expect: (answer) => {
      const chunks = answer.events.filter((e) => typeof e.data === 'object').map((e) => e.data)
      const last = chunks.at(-1)
      expect(last.choices).toEqual([])
      expect(last.usage).toMatchObject({ completion_tokens: 3, total_tokens: last.usage.prompt_tokens + 3 })
      for (const c of chunks.slice(0, -1)) expect(c.usage ?? null).toBeNull()
    },
  },
  {
    rule: 'chat stream: without include_usage no chunk carries usage ("only … when stream_options: {include_usage: true}") — an absent or null usage',
    request: { path: '/v1/chat/completions', stream: true, body: { messages: hi, max_tokens: 2 } },
    expect: (answer) => {
      for (const c of eventsOf(answer, 'message').filter((e) => typeof e.data === 'object'))
        expect(c.data.usage ?? null).toBeNull()
    },
  },
  {
    rule: 'completions: max_tokens reached → finish_reason "length", "object": "text_completion", usage (CreateCompletionResponse)',
    request: { path: '/v1/completions', body: { prompt: 'Knock knock.', max_tokens: 3 } },
    expect: ({ body }) => {
      expect(body.object).toBe('text_completion')
      expect(body.choices[0].finish_reason).toBe('length')
      expect(body.usage.completion_tokens).toBe(3)
    },
  },
  {
    rule: 'chat: unknown fields, llama.cpp samplers and new roles reach the engine untouched (svc validates only what it must know)',
    only: 'wrong-engine',
    ...reachesEngineUntouched({
      path: '/v1/chat/completions',
      body: { max_tokens: 2 },
      untouched: {
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'future_part', data: 1 },
            ],
          },
          { role: 'critic', content: 'new role' },
        ],
        reasoning_effort: 'minimal',
        verbosity: 'low',
        top_k: 20,
        chat_template_kwargs: { enable_thinking: false },
        prompt_cache_key: 'k1',
        future_field: { nested: true },
      },
    }),
  },
]
