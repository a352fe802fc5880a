/**
 * Each scope sees the minimum. Upstream addresses, URLs with credentials, model
 * paths and download URLs are admin-only; hosted upstreams' cookies and account headers never reach
 * a client. Against the real server with auth on and real upstream processes.
 */
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { freePort } from '@svc/providers/internals'
import { type FakeUpstream, startFakeUpstream, writeSvcConfig } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, loadPlaceholder, send, startAuthServer } from './auth-harness'

/** A hosted service that answers like OpenAI, with the account headers OpenAI sends. */
async function startHosted(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': '__cf_bm=account-cookie; path=/; HttpOnly',
        'openai-organization': 'org-operator',
        'openai-project': 'proj_operator',
        'x-ratelimit-limit-requests': '10000',
        'x-ratelimit-remaining-tokens': '149000',
        'x-request-id': 'req_upstream_internal',
        'alt-svc': 'h3=":443"; ma=86400',
      })
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', choices: [], model: 'gpt-x' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

const KEYED_ARGS = [
  '--api-key',
  'sk-live-0123456789',
  '--hf-token=hf_abcdefghij',
  '--ctx-size',
  '4096',
  '--rpc',
  'http://svc:hunter2@10.0.0.7:50052',
]

describe('what each scope sees', () => {
  let server: AuthServer
  let fake: FakeUpstream
  let hosted: Server
  let tokens: Record<'admin' | 'all' | 'read' | 'v1', string>
  let closedPort: number

  beforeAll(async () => {
    fake = await startFakeUpstream({})
    hosted = await startHosted()
    closedPort = await freePort()
    const hostedUrl = `http://127.0.0.1:${(hosted.address() as AddressInfo).port}/v1`
    server = await startAuthServer(
      { SVC_TRUSTED_PROXIES: 'none', ACCT_KEY: 'sk-operator' },
      async ({ configDir }) => {
        await writeSvcConfig(configDir, {
          slots: {
            remote: `provider = "llm"\nruntime = "remote"\nurl = "${fake.url}"\n`,
            // A ComfyUI behind basic auth on another box: the password is in the URL.
            guarded: `provider = "image"\nruntime = "remote"\nurl = "http://svc:hunter2@10.0.0.5:8188"\n`,
            // Replicas of a remote slot: one answers, one (behind a password) does not.
            pair: `provider = "llm"\nruntime = "remote"\nrestart = "no"\nurls = ["${fake.url}", "http://svc:hunter2@127.0.0.1:${closedPort}"]\n`,
            // Engine arguments with a key, a token and a URL with a password in them.
            keyed: `provider = "llm"\nargs = ${JSON.stringify(KEYED_ARGS)}\n`,
          },
          files: {
            'upstreams.toml': `[[upstream]]\nname = "acct"\nbase_url = "${hostedUrl}"\napi_key_env = "ACCT_KEY"\n`,
          },
        })
      },
    )
    tokens = {
      admin: (await server.mint('admin')).token,
      all: (await server.mint('all')).token,
      read: (await server.mint('read-only')).token,
      v1: (await server.mint('v1-only')).token,
    }
    const admin = { authorization: `Bearer ${tokens.admin}` }
    await loadPlaceholder(server, 'remote', admin)
    await loadPlaceholder(server, 'pair', admin)
  }, 60_000)

  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
    await fake?.stop('SIGKILL')
    hosted?.close()
  })

  const get = (token: string, path: string) =>
    send(server.url, { path, headers: { authorization: `Bearer ${token}` } })

  it('admin sees the remote URL as configured and where the upstream answers', async () => {
    const guarded = JSON.parse((await get(tokens.admin, '/api/slots/guarded')).text)
    expect(guarded.config.url).toContain('hunter2')
    const slot = JSON.parse((await get(tokens.admin, '/api/slots/remote')).text)
    expect(slot.upstream.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('all and read-only see neither credentials nor upstream addresses', async () => {
    for (const token of [tokens.all, tokens.read]) {
      const one = await get(token, '/api/slots/remote')
      expect(one.status).toBe(200)
      const slot = JSON.parse(one.text)
      expect(slot.state).toBe('ready')
      expect(slot.config.url).toBeNull()
      expect(slot.upstream).toBeNull()
      expect(JSON.parse((await get(token, '/api/slots/guarded')).text).config).toMatchObject({ url: null })
      const list = await get(token, '/api/slots')
      expect(list.text).not.toContain('hunter2')
      expect(list.text).not.toContain(`:${new URL(fake.url).port}`)
    }
  })

  it("shows a slot's engine arguments whole to admin, and without secrets to all and read-only", async () => {
    const admin = JSON.parse((await get(tokens.admin, '/api/slots/keyed')).text)
    expect(admin.config.args).toEqual(KEYED_ARGS)
    for (const token of [tokens.all, tokens.read]) {
      const slot = JSON.parse((await get(token, '/api/slots/keyed')).text)
      expect(slot.config.args).toEqual([
        '--api-key',
        '[redacted]',
        '--hf-token=[redacted]',
        '--ctx-size',
        '4096',
        '--rpc',
        'http://10.0.0.7',
      ])
      const list = (await get(token, '/api/slots')).text
      for (const secret of ['sk-live', 'hf_abc', 'hunter2']) expect(list).not.toContain(secret)
    }
  })

  it('writes slot files the API saves readable by their owner only', async () => {
    const admin = { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' }
    const body = JSON.stringify({ provider: 'llm', args: ['--api-key', 'sk-live-0123456789'] })
    const created = await send(server.url, {
      method: 'POST',
      path: '/api/slots',
      headers: admin,
      body: JSON.stringify({ name: 'saved', provider: 'llm' }),
    })
    expect(created.status, created.text).toBe(201)
    const put = await send(server.url, { method: 'PUT', path: '/api/slots/saved', headers: admin, body })
    expect(put.status, put.text).toBe(200)
    expect((await stat(join(server.configDir, 'slots', 'saved.toml'))).mode & 0o777).toBe(0o600)
  })

  it("shows replicas' URLs and a slot's urls to admin only", async () => {
    const admin = JSON.parse((await get(tokens.admin, '/api/slots/pair')).text)
    expect(admin.config.urls).toHaveLength(2)
    expect(admin.config.urls[1]).toContain('hunter2')
    expect(admin.replicas.map((r: { url: string | null }) => r.url)).toEqual([
      expect.stringContaining(`:${new URL(fake.url).port}`),
      expect.stringContaining(`:${closedPort}`),
    ])
    for (const token of [tokens.all, tokens.read]) {
      const one = await get(token, '/api/slots/pair')
      const slot = JSON.parse(one.text)
      expect(slot.state).toMatch(/ready|idle/)
      expect(slot.config.urls).toBeNull()
      expect(slot.replicas).toHaveLength(2)
      expect(slot.replicas.map((r: { id: string; url: string | null }) => [r.id, r.url])).toEqual([
        ['url-1', null],
        ['url-2', null],
      ])
      for (const text of [one.text, (await get(token, '/api/slots')).text]) {
        expect(text).not.toContain('hunter2')
        expect(text).not.toContain(`:${new URL(fake.url).port}`)
        expect(text).not.toContain(`:${closedPort}`)
      }
    }
  })

  it('only admin sees model paths and download URLs', async () => {
    const admin = JSON.parse((await get(tokens.admin, '/api/models')).text).models as Record<
      string,
      unknown
    >[]
    expect(admin.find((m) => m.id === 'qwen3-0.6b-q8_0')?.url).toMatch(/^https:\/\//)
    expect(
      admin.some((m) => typeof (m.mmproj as { url?: unknown } | null)?.url === 'string'),
      'a catalogue projector with its download URL',
    ).toBe(true)
    expect(
      admin.some((m) => typeof m.path === 'string'),
      JSON.stringify(admin.slice(-2)),
    ).toBe(true)
    for (const token of [tokens.all, tokens.read]) {
      const models = JSON.parse((await get(token, '/api/models')).text).models as Record<string, unknown>[]
      expect(models.length).toBe(admin.length)
      expect(models.every((m) => m.path === null && m.url === null)).toBe(true)
      // A vision model's projector: where it lies and where it comes from are admin-only too.
      const projectors = models.flatMap((m) => (m.mmproj ? [m.mmproj as Record<string, unknown>] : []))
      expect(projectors.length).toBeGreaterThan(0)
      expect(projectors.every((p) => p.path === null && p.url === null)).toBe(true)
      expect(models.find((m) => m.id === 'qwen3-0.6b-q8_0')).toMatchObject({
        present: false,
        needs_pull: true,
      })
    }
  })

  it('keeps pull URLs out of lastError and events for all and read-only', async () => {
    const secretUrl = `http://user:pa55word@127.0.0.1:${closedPort}/private/dir/tiny.gguf?sig=s3cr3t`
    const events = await fetch(`${server.url}/api/events`, {
      headers: { authorization: `Bearer ${tokens.all}` },
    })
    const reader = events.body!.getReader()
    const load = await send(server.url, {
      method: 'POST',
      path: '/api/slots/embed/load?wait=true',
      headers: { authorization: `Bearer ${tokens.admin}` },
      body: JSON.stringify({ model: secretUrl }),
    })
    expect(load.status).toBeGreaterThanOrEqual(400)
    const adminView = JSON.parse((await get(tokens.admin, '/api/slots/embed')).text)
    expect(adminView.lastError).toContain('127.0.0.1')
    let seen = ''
    const deadline = Date.now() + 5_000
    while (!/"error"/.test(seen) && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      seen += new TextDecoder().decode(value)
    }
    await reader.cancel()
    expect(seen).toMatch(/"to":"offline"[^\n]*"error"/)
    for (const token of [tokens.all, tokens.read]) {
      const slot = JSON.parse((await get(token, '/api/slots/embed')).text)
      expect(slot.lastError).toBeTruthy()
      for (const text of [slot.lastError as string, seen]) {
        expect(text).not.toContain('pa55word')
        expect(text).not.toContain('s3cr3t')
        expect(text).not.toContain('/private/dir')
      }
    }
  })

  it('never relays a hosted service cookies or account headers', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${tokens.v1}`, 'x-request-id': 'mine-123' },
      body: JSON.stringify({ model: 'acct/gpt-x', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(reply.status, reply.text).toBe(200)
    expect(reply.headers['set-cookie']).toBeUndefined()
    expect(reply.headers['openai-organization']).toBeUndefined()
    expect(reply.headers['openai-project']).toBeUndefined()
    expect(Object.keys(reply.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([])
    expect(reply.headers['alt-svc']).toBeUndefined()
    expect(reply.headers['x-request-id']).toBe('mine-123')
  })
})
