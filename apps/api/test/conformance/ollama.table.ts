/**
 * The Ollama API table: each row one rule of Ollama's API reference (docs/api.md of ollama/ollama,
 * quoted), its request and what an Ollama client relies on in the answer. The targets
 * (ollama.test.ts) have slot `primary` (a tiny chat GGUF on llama-server) or `wrong` (the
 * wrong-answering stand-in) as the rows' model, and beside them: `embed` (a tiny embedding GGUF),
 * `stt` and `tts` (empty), and `spare`, an llm slot that loads ref `tiny-spare` on request, with
 * `unload_after = "1h"`, which the load, unload and `keep_alive` rows drive (in order).
 */
import { expect } from 'vitest'
import type { ConformanceAnswer, ConformanceRow, ConformanceTarget } from './conformance'
import {
  ChatResponseSchema,
  EmbedResponseSchema,
  GenerateResponseSchema,
  PsResponseSchema,
  parsed,
  ShowResponseSchema,
  StreamPartSchema,
  TagsResponseSchema,
} from './ollama-shapes'
import { greedyText, stopStringFrom } from './probe'

const SPARE = 'tiny-spare'
/** A slot that answers at once (a request's lease leaves it idle). */
const LOADED = /^(ready|idle|serving)$/
const hi = [{ role: 'user', content: 'Knock knock.' }]

async function slot(
  target: ConformanceTarget,
  name: string,
): Promise<{ state: string; model: string | null }> {
  return (await (await fetch(`${target.url}/api/slots/${name}`)).json()) as {
    state: string
    model: string | null
  }
}

async function until(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return what()
}

/** The last NDJSON line, and every line before it checked as a part of a stream. */
function lastLine(answer: ConformanceAnswer) {
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toBe('application/x-ndjson')
  const lines = answer.events.map((e) => e.data)
  expect(lines.length).toBeGreaterThanOrEqual(2)
  for (const line of lines.slice(0, -1)) parsed(StreamPartSchema, line)
  return lines.at(-1)
}

async function spareExpiresAt(target: ConformanceTarget): Promise<number> {
  const ps = parsed(PsResponseSchema, await (await fetch(`${target.url}/api/ps`)).json())
  const spare = ps.models.find((m) => m.name === `${SPARE}:latest`)
  expect(spare, 'tiny-spare in /api/ps').toBeDefined()
  return Date.parse(spare!.expires_at)
}

function show(model: string) {
  return { path: '/api/show', body: { model } }
}

export const OLLAMA_TABLE: readonly ConformanceRow[] = [
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
      const at = await spareExpiresAt(target)
      expect(at).toBeGreaterThan(Date.now() + 590_000)
      expect(at).toBeLessThan(Date.now() + 610_000)
    },
  },
  {
    rule: "keep_alive absent: the server default again (svc: the slot's unload_after, 1 h here)",
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: SPARE, messages: [], stream: false } },
    async expect(answer, target) {
      expect(answer.status).toBe(200)
      const at = await spareExpiresAt(target)
      expect(at).toBeGreaterThan(Date.now() + 3_590_000)
      expect(at).toBeLessThan(Date.now() + 3_610_000)
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

  // /api/show (issue 38, case 4), per slot kind.
  {
    rule: 'show: model_info has the GGUF header\'s "general.architecture" and "<arch>.context_length", block_count, embedding_length',
    only: 'llama-server',
    request: show('primary'),
    expect(answer) {
      const body = parsed(ShowResponseSchema, answer.body)
      expect(body.model_info).toMatchObject({
        'general.architecture': 'llama',
        'llama.context_length': 1024,
        'llama.block_count': expect.any(Number),
        'llama.embedding_length': expect.any(Number),
      })
      expect(body.details).toMatchObject({ format: 'gguf', family: 'llama', families: ['llama'] })
      expect(body.details.quantization_level).toMatch(/^(F16|F32)$/)
      expect(body.template).toContain('im_start')
      // Its ChatML template takes no tools: "completion" alone.
      expect(body.capabilities).toEqual(['completion'])
    },
  },
  {
    rule: 'show: a model with a vision projector says "vision"; projector_info is the projector\'s header',
    only: 'llama-server',
    request: show('seeing'),
    expect(answer) {
      const body = parsed(ShowResponseSchema, answer.body)
      expect(body.capabilities).toEqual(['completion', 'vision'])
      expect(body.projector_info?.['general.architecture']).toBe('clip')
    },
  },
  {
    rule: 'show: capabilities of an embedding model are ["embedding"] — no "completion" or "tools"',
    only: 'llama-server',
    request: show('embed:latest'),
    expect(answer) {
      const body = parsed(ShowResponseSchema, answer.body)
      expect(body.capabilities).toEqual(['embedding'])
      expect(body.model_info['llama.pooling_type']).toBe(1)
    },
  },
  {
    rule: 'show: a speech (tts) slot says neither "completion" nor "tools" (Ollama has no word for speech)',
    only: 'llama-server',
    request: show('tts'),
    expect(answer) {
      expect(parsed(ShowResponseSchema, answer.body).capabilities).toEqual([])
    },
  },
  {
    rule: 'show: a transcription (stt) slot says neither "completion" nor "tools"',
    only: 'llama-server',
    request: show('stt'),
    expect(answer) {
      expect(parsed(ShowResponseSchema, answer.body).capabilities).toEqual([])
    },
  },
  {
    rule: 'show: a remote chat upstream (no file svc can read) says "completion" and "tools" (its own template decides)',
    only: 'wrong-engine',
    request: { path: '/api/show', body: {} },
    expect(answer) {
      expect(parsed(ShowResponseSchema, answer.body).capabilities).toEqual(['completion', 'tools'])
    },
  },
  {
    rule: 'show: "name: name of the model to show" (the older field) is read too',
    request: (target) => ({ path: '/api/show', body: { model: '', name: `${target.model}:latest` } }),
    expect(answer) {
      expect(answer.status).toBe(200)
      parsed(ShowResponseSchema, answer.body)
    },
  },
  {
    rule: 'show: an unknown model is 404 with {"error": "…"}',
    request: show('no-such-model:7b'),
    expect(answer) {
      expect(answer.status).toBe(404)
      expect(answer.body.error).toMatch(/no-such-model/)
    },
  },

  // Listings.
  {
    rule: 'tags: "List models that are available locally" with name, model, modified_at, size, digest, details',
    request: { path: '/api/tags' },
    expect(answer, target) {
      const body = parsed(TagsResponseSchema, answer.body)
      const names = body.models.map((m) => m.name)
      expect(names).toContain(`${target.model}:latest`)
      if (target.kind === 'llama-server') {
        const chat = body.models.find((m) => m.name === 'tiny-chat:latest')
        expect(chat?.details).toMatchObject({ format: 'gguf', family: 'llama' })
        expect(chat?.size).toBeGreaterThan(0)
      }
    },
  },
  {
    rule: 'ps: "List models that are currently loaded into memory" with expires_at, size_vram (and context_length)',
    request: { path: '/api/ps' },
    expect(answer, target) {
      const body = parsed(PsResponseSchema, answer.body)
      if (target.kind === 'llama-server') {
        const chat = body.models.find((m) => m.name === 'tiny-chat:latest') as
          | Record<string, unknown>
          | undefined
        expect(chat).toMatchObject({ context_length: 1024, size_vram: 0 })
        expect(body.models.map((m) => m.name)).not.toContain('tts:latest')
      }
    },
  },

  // /v1/models/{id} for every id form a client may hold.
  {
    rule: 'GET /v1/models/{model}: a slot name → "Retrieves a model instance", with svc\'s capabilities and context',
    request: (target) => ({ path: `/v1/models/${target.model}` }),
    expect(answer, target) {
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: target.model, object: 'model' })
      if (target.kind === 'llama-server')
        expect(answer.body).toMatchObject({
          capabilities: ['chat'],
          context_length: 1024,
          architecture: 'llama',
        })
    },
  },
  {
    rule: 'GET /v1/models/{model}: a vision model says "vision" (svc\'s word, from the same facts)',
    only: 'llama-server',
    request: { path: '/v1/models/seeing' },
    expect(answer) {
      expect(answer.body).toMatchObject({ capabilities: ['chat', 'vision'], architecture: 'llama' })
    },
  },
  {
    rule: 'GET /v1/models/{model}: a registry ref',
    only: 'llama-server',
    request: { path: '/v1/models/tiny-chat' },
    expect(answer) {
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: 'tiny-chat', capabilities: ['chat'] })
    },
  },
  {
    rule: 'GET /v1/models/{model}: an Ollama name:tag ("The tag is optional and, if not provided, will default to latest")',
    request: (target) => ({ path: `/v1/models/${target.model}:latest` }),
    expect(answer, target) {
      expect(answer.status).toBe(200)
      expect(answer.body.id).toBe(target.model)
    },
  },
  {
    rule: 'GET /v1/models/{model}: a preset alias (presets.toml), with the capabilities and context of the model it runs',
    only: 'llama-server',
    request: { path: '/v1/models/knock' },
    expect(answer) {
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ id: 'knock', capabilities: ['chat'], context_length: 1024 })
    },
  },
  {
    rule: 'chat, Load a model, by a preset alias as name:tag: the engine it runs on is ready → done_reason "load"',
    only: 'llama-server',
    request: { path: '/api/chat', body: { model: 'knock:latest', messages: [], stream: false } },
    expect(answer) {
      expect(answer.status).toBe(200)
      expect(parsed(ChatResponseSchema, answer.body)).toMatchObject({
        model: 'knock:latest',
        done_reason: 'load',
      })
    },
  },
  {
    rule: 'show: a preset alias shows the model it runs (model_info from its GGUF)',
    only: 'llama-server',
    request: show('knock'),
    expect(answer) {
      const body = parsed(ShowResponseSchema, answer.body)
      expect(body.model_info['general.architecture']).toBe('llama')
      expect(body.capabilities).toContain('completion')
    },
  },
  {
    rule: 'GET /v1/models/{model}: a Hub name with "/" and ":" reaches the model lookup (404 model.not_found, not route.not_found)',
    request: { path: '/v1/models/hf.co/nobody/nothing-GGUF:Q4_K_M' },
    expect(answer) {
      expect(answer.status).toBe(404)
      expect(answer.body.error.code).toBe('model.not_found')
      expect(answer.body.error.message).toContain('hf.co/nobody/nothing-GGUF:Q4_K_M')
    },
  },
]
