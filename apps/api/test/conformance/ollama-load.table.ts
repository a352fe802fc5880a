/**
 * The Ollama table's load, unload and `keep_alive` rows, in order: each row leaves `spare` as the
 * next expects (see ollama.table.ts).
 */
import { expect } from 'vitest'
import type { ConformanceRow } from './conformance'
import { expectSpareExpiresIn, hi, LOADED, SPARE, slot, spareExpiresAt, until } from './ollama-helpers'
import { ChatResponseSchema, EmbedResponseSchema, GenerateResponseSchema, parsed } from './ollama-shapes'

export const OLLAMA_LOAD_ROWS: readonly ConformanceRow[] = [
  // Loading and unloading (issue 38, case 1), in order: each row leaves `spare` as the next expects.
  {
    rule: 'chat, Load a model: "If the messages array is empty, the model will be loaded into memory" → done_reason "load"',
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: SPARE, messages: [], stream: false } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      const body = parsed(ChatResponseSchema, answer.body)
      expect(body).toMatchObject({
        model: SPARE,
        done_reason: 'load',
        message: { role: 'assistant', content: '' },
      })
      expect(await slot(target, 'spare')).toMatchObject({
        state: expect.stringMatching(LOADED),
        model: SPARE,
      })
    },
  },
  {
    rule: 'chat, Unload a model: "If the messages array is empty and the keep_alive parameter is set to 0, a model will be unloaded from memory" → done_reason "unload"',
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: SPARE, messages: [], keep_alive: 0 } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      // "A single JSON object is returned", though the request streams by default.
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
      expect(parsed(ChatResponseSchema, answer.body).done_reason).toBe('unload')
      expect((await slot(target, 'spare')).state).toBe('offline')
    },
  },
  {
    rule: 'generate, Load a model: "If an empty prompt is provided, the model will be loaded into memory" (streamed by default, one JSON object)',
    only: 'llama-server',
    request: { path: '/api/generate', body: { model: `${SPARE}:latest` } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      const body = parsed(GenerateResponseSchema, answer.body)
      expect(body).toMatchObject({ model: `${SPARE}:latest`, response: '', done_reason: 'load' })
      expect(await slot(target, 'spare')).toMatchObject({
        state: expect.stringMatching(LOADED),
        model: SPARE,
      })
    },
  },
  {
    rule: 'generate, Unload a model: "If an empty prompt is provided and the keep_alive parameter is set to 0, a model will be unloaded from memory"',
    only: 'llama-server',
    request: { path: '/api/generate', body: { model: SPARE, keep_alive: 0, stream: false } },
    async expect(answer, target) {
      expect(parsed(GenerateResponseSchema, answer.body).done_reason).toBe('unload')
      expect((await slot(target, 'spare')).state).toBe('offline')
    },
  },
  {
    rule: 'keep_alive: "a duration string (such as "10m" or "24h")" — the model stays that long after the request, then unloads',
    only: 'llama-server',
    request: { path: '/api/generate', body: { model: SPARE, keep_alive: '2s', stream: false } },
    timeoutMs: 30_000,
    async expect(answer, target) {
      expect(parsed(GenerateResponseSchema, answer.body).done_reason).toBe('load')
      expect((await slot(target, 'spare')).state).toMatch(LOADED)
      expect(await until(async () => (await slot(target, 'spare')).state === 'offline', 15_000)).toBe(true)
    },
  },
  {
    rule: 'keep_alive: "0 which will unload the model immediately after generating a response"',
    only: 'llama-server',
    request: {
      path: '/api/chat',
      body: { model: SPARE, messages: hi, keep_alive: 0, stream: false, options: { num_predict: 2 } },
    },
    timeoutMs: 30_000,
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      expect(parsed(ChatResponseSchema, answer.body).eval_count).toBe(2)
      expect(await until(async () => (await slot(target, 'spare')).state === 'offline', 10_000)).toBe(true)
    },
  },
  {
    rule: 'keep_alive: "any negative number which will keep the model loaded in memory (e.g. -1 or "-1m")" — /api/ps expires_at far ahead',
    only: 'llama-server',
    request: { path: '/api/generate', body: { model: SPARE, keep_alive: -1, stream: false } },
    async expect(answer, target) {
      expect(parsed(GenerateResponseSchema, answer.body).done_reason).toBe('load')
      expect(await spareExpiresAt(target)).toBeGreaterThan(Date.parse('2200-01-01'))
    },
  },
  {
    rule: 'keep_alive: "a number in seconds (such as 3600)" — /api/ps expires_at that far ahead, instead of the slot\'s own 1 h',
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: SPARE, messages: [], keep_alive: 600, stream: false } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      await expectSpareExpiresIn(target, 600_000)
    },
  },
  {
    rule: "keep_alive absent: the server default again (svc: the slot's unload_after, 1 h here)",
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: SPARE, messages: [], stream: false } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      await expectSpareExpiresIn(target, 3_600_000)
    },
  },
  {
    rule: 'embed with no input loads the embedding model and answers no embeddings; chat to it is refused ("does not support chat")',
    only: 'llama-server',
    request: { path: '/api/embed', body: { model: 'embed', input: [] } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      expect(parsed(EmbedResponseSchema, answer.body)).toMatchObject({ model: 'embed', embeddings: [] })
      const chat = await fetch(`${target.url}/api/chat`, {
        method: 'POST',
        body: '{"model":"embed","messages":[]}',
      })
      expect(chat.status).toBe(400)
      expect(((await chat.json()) as { error: string }).error).toMatch(/does not support chat/)
    },
  },
  {
    rule: 'issue 38 case 1: POST /api/chat {"model":"primary","messages":[]} loads and answers done_reason "load", never 400',
    request: { path: '/api/chat', body: { messages: [] } },
    expect(answer) {
      expect(answer.status).toBe(200)
      expect(parsed(ChatResponseSchema, answer.body).done_reason).toBe('load')
    },
  },
  {
    rule: 'keep_alive that is no duration is refused: 400 naming keep_alive (Ollama: "time: invalid duration")',
    request: { path: '/api/chat', body: { messages: hi, keep_alive: 'soon', stream: false } },
    expect(answer) {
      expect(answer.status).toBe(400)
      expect(answer.body.error).toMatch(/keep_alive/)
    },
  },
  {
    rule: 'keep_alive of another type is refused: 400 naming keep_alive (Ollama: "Unsupported type")',
    request: { path: '/api/generate', body: { prompt: 'x', keep_alive: true } },
    expect(answer) {
      expect(answer.status).toBe(400)
      expect(answer.body.error).toMatch(/keep_alive/)
    },
  },
]
