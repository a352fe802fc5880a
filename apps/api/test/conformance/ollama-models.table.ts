/**
 * The Ollama table's model rows: `/api/show` per slot kind, the listings (`/api/tags`, `/api/ps`)
 * and `/v1/models/{id}` for every id form a client may hold, preset aliases included.
 */
import { expect } from 'vitest'
import type { ConformanceRow } from './conformance'
import { show } from './ollama-helpers'
import {
  ChatResponseSchema,
  PsResponseSchema,
  parsed,
  ShowResponseSchema,
  TagsResponseSchema,
} from './ollama-shapes'

export const OLLAMA_MODEL_ROWS: readonly ConformanceRow[] = [
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
