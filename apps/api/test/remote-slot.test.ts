/**
 * Remote slots without ceremony: a remote LLM slot pointing at a real llama-server loads
 * with no local file (the model named by the remote's /v1/models), skips local hardware checks,
 * lists the remote's model, and serves through svc.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  encodeGguf,
  type LlamaServer,
  startApiWithConfig,
  startLlamaServer,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import {
  call,
  cli,
  type ErrorBody,
  llamaServerAvailable,
  requestLoad,
  type SlotBody,
  waitForSlot,
} from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('a remote LLM slot', () => {
  let dir: string
  let remote: LlamaServer
  let api: ApiProcess

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-remote-'))
    const gguf = await writeTinyGguf(join(dir, 'elsewhere.gguf'), { role: 'chat' })
    remote = await startLlamaServer({ model: gguf.path, alias: 'far-model' })
    api = await startApiWithConfig({
      slots: {
        // No model named, and a backend this CPU box does not have: neither matters for a remote slot.
        far: `enabled = true\nprovider = "llm"\nbackend = "cuda"\nruntime = "remote"\nurl = "${remote.url}"\n`,
      },
    })
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await remote?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('loads at startup with the model the remote serves, with no local file', async () => {
    const slot = await waitForSlot(api, 'far', (s) => s.state === 'ready', 30_000)
    expect(slot).toMatchObject({ model: 'far-model', backend: 'cuda', lastError: null })
    expect(slot.upstream?.base).toBe(remote.url) // requests go to the remote itself
    // The remote's health and latency are in the slot's status.
    const replicas = (slot as SlotBody & { replicas: { url: string; healthy: boolean; latencyMs: number }[] })
      .replicas
    expect(replicas).toEqual([expect.objectContaining({ url: remote.url, healthy: true })])
    expect(replicas[0]?.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it("lists the remote's model in /v1/models and serves it through svc by model or slot name", async () => {
    const list = await call<{ data: { id: string }[] }>(api, '/v1/models')
    expect(list.body.data.map((m) => m.id)).toEqual(expect.arrayContaining(['far', 'far-model']))
    for (const model of ['far', 'far-model']) {
      const chat = await call<{ choices: { message: { content: string } }[] }>(api, '/v1/chat/completions', {
        method: 'POST',
        json: { model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 3 },
      })
      expect(chat.status).toBe(200)
      expect(typeof chat.body.choices[0]?.message.content).toBe('string')
    }
  })

  it('refuses a model the remote does not serve, naming what it serves', async () => {
    const r = await requestLoad<ErrorBody>(api, 'far', { model: 'not-there' }, { wait: false })
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ code: 'model.not_found' })
    expect(r.body.error.message).toBe(
      `the remote at ${remote.url} serves no model "not-there" (it serves: far-model)`,
    )
    expect((await call<SlotBody>(api, '/api/slots/far')).body.state).toMatch(/ready|idle/)
  })

  it('reloads after an unload with no model named (API and CLI)', async () => {
    await call(api, '/api/slots/far/unload?wait=true', { method: 'POST' })
    const r = await requestLoad<SlotBody>(api, 'far', {})
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ state: 'ready', model: 'far-model' })
    await call(api, '/api/slots/far/unload?wait=true', { method: 'POST' })
    const byCli = await cli(api, ['slot', 'load', 'far'])
    expect(byCli.stderr).toBe('')
    expect(byCli.stdout).toMatch(/far is ready with far-model/)
  })

  it('still asks for a model when a local slot has none to fall back on', async () => {
    const r = await requestLoad<ErrorBody>(api, 'primary', {}, { wait: false })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ code: 'request.invalid', param: 'model' })
  })

  it('still loads the way it did before: a local file named as its model (the upstream never reads it)', async () => {
    const legacy = join(dir, 'stand-in.gguf')
    // The upstream never reads it; svc reads its header (a GGUF with no tensors is a model file).
    await writeFile(legacy, encodeGguf(new Map(), []))
    const r = await requestLoad<SlotBody>(api, 'far', { model: legacy })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ state: 'ready', model: 'stand-in' })
    const chat = await sendChat(api, { model: 'far', max_tokens: 2 })
    expect(chat.status).toBe(200)
  })
})
