import { IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { type Endpoint, SvcError } from '@svc/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DispatchHarness, post, startDispatchHarness } from '../test/dispatch-harness'
import type { SlotRoute } from './dispatch-types'

/**
 * The two doors onto a slot, a client's `/v1/*` request (`handle`) and a request made inside svc
 * (`call`, the Ollama API's), take the same steps (slot-request.ts). One table of cases, each run
 * through both: what one door refuses or rewrites, the other does too.
 */
const PATHS: Partial<Record<Endpoint, string>> = {
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
}
const HI = [{ role: 'user', content: 'hi' }]
const IMAGE = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ],
  },
]

/** The provider of the harness's slots: serves chat and embeddings, and prepares a chat's body. */
const route: SlotRoute = {
  endpoints: ['chat', 'embeddings'],
  requestPath: (endpoint) => PATHS[endpoint]!,
  prepareBody(endpoint, body) {
    if (endpoint !== 'chat') return undefined
    if (body.tool_choice === 'refuse-me')
      throw new SvcError('request.invalid', 'this engine cannot carry that', { param: 'tool_choice' })
    return body.reasoning_effort === undefined ? undefined : { ...body, prepared: true }
  },
}

interface Case {
  name: string
  path: string
  body: Record<string, unknown>
  /** What the client is refused with; undefined: it is answered. */
  refused?: { status: number; code: string; param: string | null }
  /** The fields the upstream must have received (when answered). */
  upstreamGot?: Record<string, unknown>
}

const CASES: Case[] = [
  {
    name: "the provider's preparation of the body reaches the upstream",
    path: '/v1/chat/completions',
    body: { model: 'primary', messages: HI, reasoning_effort: 'low' },
    upstreamGot: { prepared: true, reasoning_effort: 'low' },
  },
  {
    name: 'a body the provider cannot carry is refused before any wait',
    path: '/v1/chat/completions',
    body: { model: 'primary', messages: HI, tool_choice: 'refuse-me' },
    refused: { status: 400, code: 'request.invalid', param: 'tool_choice' },
  },
  {
    name: 'an image for a model without a vision projector is refused',
    path: '/v1/chat/completions',
    body: { model: 'primary', messages: IMAGE },
    refused: { status: 400, code: 'request.invalid', param: 'messages' },
  },
  {
    name: 'a model the caller may not use is refused before resolution',
    path: '/v1/chat/completions',
    body: { model: 'secret', messages: HI },
    refused: { status: 403, code: 'auth.forbidden', param: 'model' },
  },
  {
    name: 'a slot that does not serve the endpoint is refused',
    path: '/v1/completions',
    body: { model: 'primary', prompt: 'hi' },
    refused: { status: 400, code: 'request.invalid', param: 'model' },
  },
]

type Door = (h: DispatchHarness, c: Case) => Promise<{ status: number; body: Record<string, unknown> }>

const DOORS: Record<string, Door> = {
  'a client request (handle)': async (h, c) => {
    const res = await post(h, c.path, c.body)
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  },
  'a request inside svc (call)': async (h, c) => {
    try {
      return await h.dispatcher.call(
        {
          path: c.path,
          body: c.body,
          requestId: 'call-1',
          signal: new AbortController().signal,
          route: '/api/chat',
          req: new IncomingMessage(new Socket()),
        },
        async (response) => ({ status: response.status, body: (await response.json()) as never }),
      )
    } catch (error) {
      if (!(error instanceof SvcError)) throw error
      return { status: error.status, body: { error: { code: error.code, param: error.param ?? null } } }
    }
  },
}

describe.each(Object.entries(DOORS))('the steps to a slot, through %s', (_door, send) => {
  let h: DispatchHarness
  beforeAll(async () => {
    h = await startDispatchHarness({
      loads: { primary: 'qwen' },
      routeFor: () => route,
      allowedModels: () => (name) => name !== 'secret',
      known: ['secret'],
    })
  })
  afterAll(async () => {
    await h[Symbol.asyncDispose]()
  })

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = h.seen.length
    const answer = await send(h, c)
    if (c.refused) {
      expect(answer.status).toBe(c.refused.status)
      expect(answer.body.error).toMatchObject({ code: c.refused.code, param: c.refused.param })
      expect(h.seen.length).toBe(before)
      return
    }
    expect(answer.status).toBe(200)
    expect(h.seen.length).toBe(before + 1)
    expect(JSON.parse(h.seen.at(-1)!.body)).toMatchObject(c.upstreamGot ?? {})
  })
})
