/**
 * `generate` against a small local server that speaks the OpenAI stream protocol the way reasoning
 * models do (`reasoning_content` from llama.cpp, `reasoning` from others, svc's `{"error"}` event):
 * the tiny random models cannot reason, so this stands in for the API's answer stream.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { silentLogger } from '@svc/core/node'
import { afterEach, describe, expect, it } from 'vitest'
import { storeOver } from '../store/chat-store'
import { openDatabase } from '../store/database'
import { createSvcApi } from '../upstream/svc-api'
import { type GenerateOptions, generate } from './generate'

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

/** Serves `/v1/chat/completions` with these SSE `data:` payloads (or an error status). */
async function upstream(
  events: string[],
  options: { status?: number; body?: string; headers?: Record<string, string> } = {},
) {
  let seen: { headers: Record<string, unknown>; body: string } | undefined
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => {
      body += d.toString()
    })
    req.on('end', () => {
      seen = { headers: req.headers, body }
      if (options.status) {
        res.writeHead(options.status, { 'content-type': 'application/json' }).end(options.body)
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', ...options.headers })
      for (const e of events) res.write(`data: ${e}\r\n\r\n`)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
  }
}

/**
 * A conversation with a streaming assistant message, and `run`: `generate` into that message from
 * the server at `url`, with `token` (none by default) and `request`; no emit unless given.
 */
function setup() {
  const store = storeOver(openDatabase(':memory:'))
  const u = store.users.ensure('u').id
  const c = store.conversations.create(u, { title: 't', model: null, system: '' })
  const assistant = store.messages.append(c.id, u, { role: 'assistant', status: 'streaming', model: 'm' })
  const run = (
    url: string,
    options: {
      token?: string
      request: GenerateOptions['request']
      emit?: GenerateOptions['emit']
      person?: string
    },
  ) =>
    generate({
      api: createSvcApi({ baseUrl: url, token: options.token }),
      messages: store.messages,
      assistant,
      request: options.request,
      signal: new AbortController().signal,
      emit: options.emit ?? (() => {}),
      logger: silentLogger,
      ...(options.person ? { person: options.person } : {}),
    })
  return { store, c, assistant, run }
}

const delta = (d: Record<string, string>) => JSON.stringify({ choices: [{ delta: d }] })

describe('generate', () => {
  it('names the person to the API and tells the browser what is left of their quota after the answer', async () => {
    const up = await upstream(
      [
        delta({ content: 'Hi' }),
        JSON.stringify({
          choices: [{ delta: {}, finish_reason: 'stop' }],
          timings: { prompt_n: 9, cache_n: 1, predicted_n: 2 },
        }),
        '[DONE]',
      ],
      {
        headers: {
          'x-ratelimit-limit-tokens-day': '1000',
          'x-ratelimit-remaining-tokens-day': '500',
          'x-ratelimit-reset-tokens-day': '3h0m0s',
          'x-ratelimit-limit-requests': '5',
          'x-ratelimit-remaining-requests': '4',
          'x-ratelimit-reset-requests': '59s',
        },
      },
    )
    const { run } = setup()
    const events: [string, unknown][] = []
    await run(up.url, {
      token: 'svc_x',
      person: 'ana@home',
      request: { model: 'm', messages: [] },
      emit: (e, d) => events.push([e, d]),
    })
    expect(up.seen()?.headers['x-svc-user']).toBe('ana@home')
    const done = events.find(([e]) => e === 'done')?.[1] as { allowance: unknown }
    expect(done.allowance).toEqual({
      requests: { limit: 5, remaining: 4, reset: '59s' },
      tokensDay: { limit: 1000, remaining: 488, reset: '3h0m0s' },
    })
  })

  it('streams content and both spellings of reasoning, and saves the whole answer', async () => {
    const up = await upstream([
      delta({ reasoning_content: 'Let me ' }),
      delta({ reasoning: 'think.' }),
      delta({ content: 'Hello' }),
      delta({ content: ', world' }),
      JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] }),
      '[DONE]',
    ])
    const { store, c, assistant, run } = setup()
    const emitted: [string, unknown][] = []
    const final = await run(up.url, {
      token: 'svc_test.token',
      request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      emit: (event, data) => emitted.push([event, data]),
    })
    expect(emitted.slice(0, 4)).toEqual([
      ['delta', { reasoning: 'Let me ' }],
      ['delta', { reasoning: 'think.' }],
      ['delta', { content: 'Hello' }],
      ['delta', { content: ', world' }],
    ])
    expect(emitted.at(-1)?.[0]).toBe('done')
    expect([final.status, final.content, final.reasoning]).toEqual([
      'complete',
      'Hello, world',
      'Let me think.',
    ])
    expect(store.messages.get(c.id, assistant.id)).toMatchObject({
      content: 'Hello, world',
      status: 'complete',
    })
    // The API got the chat app's token and a streaming request.
    expect(up.seen()?.headers.authorization).toBe('Bearer svc_test.token')
    expect(JSON.parse(up.seen()!.body)).toMatchObject({ model: 'm', stream: true })
  })

  it('keeps what arrived and marks the answer failed when the stream ends with an error event', async () => {
    const up = await upstream([
      delta({ content: 'Half an ans' }),
      JSON.stringify({ error: { message: 'upstream died' } }),
    ])
    const { run } = setup()
    const final = await run(up.url, { request: { model: 'm', messages: [] } })
    expect([final.status, final.content, final.error]).toEqual(['error', 'Half an ans', 'upstream died'])
  })

  it('shows the API’s own error message when the request is refused', async () => {
    const up = await upstream([], {
      status: 409,
      body: JSON.stringify({
        error: { code: 'model.not_loaded', message: 'no slot holds "x"; svc slot load …' },
      }),
    })
    const { run } = setup()
    const final = await run(up.url, { request: { model: 'x', messages: [] } })
    expect([final.status, final.error]).toEqual(['error', 'no slot holds "x"; svc slot load …'])
  })
})
