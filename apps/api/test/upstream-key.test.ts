/**
 * An upstream svc starts on loopback has a key of its own: a real llama-server started by a real
 * API refuses a local process that calls its port directly, and serves through svc. The key is in
 * the upstream's environment only: not in its argv (`ps`), the API's answers or its log.
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApi, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, LIGHT_ARGS, llamaServerAvailable, loadOk, type SlotBody } from './live'

const available = llamaServerAvailable()
let gguf: string

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-key-'))
  gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
})

describe.skipIf(!available)('the key of an upstream on loopback', () => {
  it('a direct request to llama-server without the key gets 401; through svc it is served', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    await loadOk(api, 'primary', gguf)
    const slot = (await call<SlotBody>(api, '/api/slots/primary')).body
    const base = slot.upstream?.base
    const pid = slot.upstream?.pid
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const chat = { model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }
    const direct = (headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(chat),
      })

    expect((await direct()).status).toBe(401)
    expect((await direct({ authorization: 'Bearer guessed' })).status).toBe(401)
    expect((await fetch(`${base}/v1/models`)).status).toBe(401)
    expect((await fetch(`${base}/health`)).status).toBe(200) // public: svc's health probe needs no key

    // Through svc; a client's own Authorization is never passed on (with auth off it is ignored).
    expect((await sendChat(api, { model: 'primary', max_tokens: 2 })).status).toBe(200)
    const withClientAuth = await call(api, '/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer not-the-upstream-key' },
      json: { ...chat, model: 'primary' },
    })
    expect(withClientAuth.status).toBe(200)

    // The key lives in the upstream's environment (root may read it), nowhere a user sees.
    const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0')
    const key = environ.find((e) => e.startsWith('LLAMA_API_KEY='))?.slice('LLAMA_API_KEY='.length) ?? ''
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect((await direct({ authorization: `Bearer ${key}` })).status).toBe(200)
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8')
    expect(cmdline).not.toContain(key)
    expect(cmdline).not.toContain('--api-key')
    for (const path of ['/api/slots', '/api/slots/primary', '/api/slots/primary/logs', '/api/metrics']) {
      expect(JSON.stringify((await call(api, path)).body)).not.toContain(key)
    }
    expect(api.output()).not.toContain(key)
    // The pid file that lets the next start adopt it (and keep its key) is the service user's alone.
    expect((await stat(join(api.stateDir, 'run', 'primary.json'))).mode & 0o777).toBe(0o600)
  }, 120_000)

  it('an adopted upstream keeps its key: after an API crash, the restarted API still serves through it', async () => {
    await using first = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    await loadOk(first, 'primary', gguf)
    const before = (await call<SlotBody>(first, '/api/slots/primary')).body.upstream?.pid
    await first.stop('SIGKILL')
    await using second = await startApi({ configDir: first.configDir, stateDir: first.stateDir })
    const deadline = Date.now() + 30_000
    let adopted: SlotBody | undefined
    while (Date.now() < deadline) {
      adopted = (await call<SlotBody>(second, '/api/slots/primary')).body
      if (adopted.state === 'ready') break
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(adopted?.upstream?.pid).toBe(before)
    expect((await sendChat(second, { model: 'primary', max_tokens: 2 })).status).toBe(200)
    await call(second, '/api/slots/primary/unload?wait=true', { method: 'POST' })
  }, 120_000)
})
