/**
 * Malformed bodies of every inference endpoint are 400 `request.invalid` with `param`
 * (413 when too large), never 500 and never a hang.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '@svc/core/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readServeEnv } from '../src/env'
import { type SvcServer, startSvc } from '../src/server'

let svc: SvcServer

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'svc-malformed-'))
  const env = readServeEnv({
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_CONFIG_DIR: join(root, 'c'),
    SVC_STATE_DIR: join(root, 's'),
  })
  svc = await startSvc({ env, logger: silentLogger })
})
afterAll(() => svc?.stop())

const chat = { model: 'primary', messages: [{ role: 'user', content: 'hi' }] }

type Case = [path: string, body: string | object, param: string | null, contentType?: string]

const CASES: Case[] = [
  ['/v1/chat/completions', { messages: chat.messages }, 'model'],
  ['/v1/chat/completions', { ...chat, model: 42 }, 'model'],
  ['/v1/chat/completions', { ...chat, model: '' }, 'model'],
  ['/v1/chat/completions', { model: 'primary', messages: 'hi' }, 'messages'],
  ['/v1/chat/completions', { model: 'primary', messages: [] }, 'messages'],
  ['/v1/chat/completions', { model: 'primary', messages: [{ content: 'no role' }] }, 'messages.0.role'],
  ['/v1/chat/completions', { ...chat, stream: 'yes' }, 'stream'],
  ['/v1/chat/completions', { ...chat, max_tokens: 0 }, 'max_tokens'],
  ['/v1/chat/completions', { ...chat, temperature: 7 }, 'temperature'],
  ['/v1/chat/completions', { ...chat, tools: {} }, 'tools'],
  ['/v1/chat/completions', '{"model": "primary", "messages": [', null],
  ['/v1/chat/completions', '[1, 2, 3]', null],
  ['/v1/chat/completions', '', null],
  ['/v1/chat/completions', 'model=primary', null, 'application/x-www-form-urlencoded'],
  ['/v1/completions', { model: 'primary' }, 'prompt'],
  ['/v1/completions', { model: 'primary', prompt: { text: 'x' } }, 'prompt'],
  ['/v1/embeddings', { model: 'embed' }, 'input'],
  ['/v1/embeddings', { model: 'embed', input: '' }, 'input'],
  ['/v1/embeddings', { model: 'embed', input: [1.5] }, 'input.0'],
  ['/v1/embeddings', { model: 'embed', input: 'x', encoding_format: 'hex' }, 'encoding_format'],
  ['/v1/embeddings', { model: 'embed', input: 'x', dimensions: -1 }, 'dimensions'],
  ['/v1/rerankings', { model: 'rerank', documents: ['a'] }, 'query'],
  ['/v1/rerankings', { model: 'rerank', query: 'q', documents: 'a' }, 'documents'],
  ['/v1/rerankings', { model: 'rerank', query: 'q', documents: [] }, 'documents'],
  ['/v1/rerankings', { model: 'rerank', query: 'q', documents: [1] }, 'documents.0'],
  ['/v1/rerank', { model: 'rerank', query: 'q', documents: ['a'], top_n: 0 }, 'top_n'],
  ['/v1/audio/speech', { model: 'tts', voice: 'alloy' }, 'input'],
  ['/v1/audio/speech', { model: 'tts', input: 'hi', voice: 3 }, 'voice'],
  [
    '/v1/audio/speech',
    { model: 'tts', input: 'hi', voice: 'alloy', response_format: 'ogg' },
    'response_format',
  ],
  ['/v1/audio/speech', { model: 'tts', input: 'hi', voice: 'alloy', speed: 10 }, 'speed'],
  ['/v1/images/generations', { model: 'sdxl-turbo' }, 'prompt'],
  ['/v1/images/generations', { prompt: 5 }, 'prompt'],
  ['/v1/audio/transcriptions', '{"model":"stt"}', 'file', 'application/json'],
]

describe('malformed bodies', () => {
  it.each(CASES)('%s %j → 400 with param %s', async (path, body, param, contentType = 'application/json') => {
    const res = await fetch(svc.url + path, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    const json = await res.json()
    expect(res.status).toBe(400)
    expect(json).toEqual({
      error: { code: 'request.invalid', message: expect.any(String), type: 'invalid_request_error', param },
    })
    expect(res.headers.get('x-request-id')).toBeTruthy()
  })

  it('a multipart transcription without a model field is 400 with param model', async () => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(1000)], { type: 'audio/wav' }), 'a.wav')
    const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(400)
    expect((await res.json()).error).toMatchObject({ code: 'request.invalid', param: 'model' })
  })

  it('an upload over 25 MB is 413 request.too_large', async () => {
    const form = new FormData()
    form.append('model', 'stt')
    form.append('file', new Blob([new Uint8Array(26 * 1024 * 1024)], { type: 'audio/wav' }), 'big.wav')
    const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(res.status).toBe(413)
    expect((await res.json()).error.code).toBe('request.too_large')
  })

  it('a JSON body over the limit is 413', async () => {
    const res = await fetch(`${svc.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] }),
    })
    expect(res.status).toBe(413)
  })

  it('a GET on an inference endpoint is 405 with Allow: POST', async () => {
    const res = await fetch(`${svc.url}/v1/chat/completions`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect((await res.json()).error.code).toBe('method.not_allowed')
  })

  it('a valid body for a model nobody knows is 404, and for an empty slot 409', async () => {
    const nope = await fetch(`${svc.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, model: 'nope' }),
    })
    expect(nope.status).toBe(404)
    const empty = await fetch(`${svc.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat),
    })
    expect(empty.status).toBe(409)
    expect((await empty.json()).error).toMatchObject({
      code: 'model.not_loaded',
      message: expect.stringContaining('primary'),
    })
  })
})
