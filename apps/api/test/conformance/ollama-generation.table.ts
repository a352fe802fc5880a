/**
 * The Ollama table's generation rows: what svc does not know passes to the engine; num_predict,
 * stop, counts and durations, streamed and not.
 */
import { expect } from 'vitest'
import type { ConformanceRow } from './conformance'
import { hi, lastLine } from './ollama-helpers'
import { ChatResponseSchema, GenerateResponseSchema, parsed } from './ollama-shapes'
import { greedyText, stopStringFrom } from './probe'

export const OLLAMA_GENERATION_ROWS: readonly ConformanceRow[] = [
  // What svc does not know passes to the engine (issue 38: validate only what svc must know).
  {
    rule: 'chat: "options: additional model parameters listed in the documentation for the Modelfile" — an option svc does not know, a new role and a newer think level reach the engine as they came; load options do not',
    request: {
      path: '/api/chat',
      body: {
        messages: [{ role: 'critic', content: 'new role' }, ...hi],
        stream: false,
        think: 'max',
        options: { num_predict: 2, top_k: 20, xtc_probability: 0.1, future_knob: { on: true }, num_ctx: 64 },
      },
    },
    expect(answer, target) {
      expect(answer.status).toBe(200)
      parsed(ChatResponseSchema, answer.body)
      const sent = target.received?.().findLast((r) => r.path === '/v1/chat/completions')?.body as
        | Record<string, unknown>
        | undefined
      if (target.kind !== 'wrong-engine') return // the real engine took them: 200 above
      expect(sent).toMatchObject({
        messages: [
          { role: 'critic', content: 'new role' },
          { role: 'user', content: 'Knock knock.' },
        ],
        reasoning_effort: 'max',
        max_tokens: 2,
        top_k: 20,
        xtc_probability: 0.1,
        future_knob: { on: true },
      })
      expect(sent).not.toHaveProperty('num_ctx')
    },
  },

  // Generation: num_predict, stop, usage.
  {
    rule: 'chat: options.num_predict reached → done_reason "length"; eval_count "number of tokens in the response"',
    request: { path: '/api/chat', body: { messages: hi, stream: false, options: { num_predict: 3 } } },
    expect(answer) {
      const body = parsed(ChatResponseSchema, answer.body)
      expect(body.done_reason).toBe('length')
      expect(body.eval_count).toBe(3)
      expect(body.prompt_eval_count).toBeGreaterThan(0)
    },
  },
  {
    rule: 'chat, streamed: "The final response in the stream also includes additional data" — done_reason "length", eval_count, prompt_eval_count',
    request: { path: '/api/chat', body: { messages: hi, options: { num_predict: 4 } } },
    expect(answer) {
      const last = parsed(ChatResponseSchema, lastLine(answer))
      expect(last).toMatchObject({ done: true, done_reason: 'length', eval_count: 4 })
      expect(last.prompt_eval_count).toBeGreaterThan(0)
      expect(last.total_duration).toBeGreaterThanOrEqual(last.eval_duration)
    },
  },
  {
    rule: 'generate, streamed: num_predict reached → the last line done, done_reason "length", eval_count',
    request: { path: '/api/generate', body: { prompt: 'Knock knock.', options: { num_predict: 3 } } },
    expect(answer) {
      const last = parsed(GenerateResponseSchema, lastLine(answer))
      expect(last).toMatchObject({ done: true, done_reason: 'length', eval_count: 3 })
    },
  },
  {
    rule: 'chat: options.stop hit → done_reason "stop", the stop text not in the answer',
    async request(target) {
      const stop = stopStringFrom(await greedyText(target))
      return {
        path: '/api/chat',
        body: { messages: hi, stream: false, options: { num_predict: 12, temperature: 0, stop: [stop] } },
      }
    },
    async expect(answer, target) {
      const body = parsed(ChatResponseSchema, answer.body)
      expect(body.done_reason).toBe('stop')
      expect(body.message.content).not.toContain(stopStringFrom(await greedyText(target)))
      expect(body.eval_count).toBeLessThan(12)
    },
  },
  {
    rule: 'generate, streamed: options.stop hit → the last line done_reason "stop"',
    async request(target) {
      const stop = stopStringFrom(await greedyText(target))
      return {
        path: '/api/generate',
        body: { prompt: 'Knock knock.', options: { num_predict: 12, temperature: 0, stop: [stop] } },
      }
    },
    expect(answer) {
      expect(parsed(GenerateResponseSchema, lastLine(answer)).done_reason).toBe('stop')
    },
  },
  {
    rule: 'generate: "Durations: All durations are returned in nanoseconds"; prompt_eval_count, eval_count as counts',
    request: {
      path: '/api/generate',
      body: { prompt: 'Knock knock.', stream: false, options: { num_predict: 2 } },
    },
    expect(answer, target) {
      const body = parsed(GenerateResponseSchema, answer.body)
      expect(body).toMatchObject({ eval_count: 2, done_reason: 'length' })
      expect(body.prompt_eval_count).toBeGreaterThan(0)
      // Two tokens and a request through svc take more than a microsecond: nanoseconds, not ms.
      expect(body.total_duration).toBeGreaterThan(1_000)
      if (target.kind === 'llama-server') expect(body.eval_duration).toBeGreaterThan(0)
    },
  },
]
