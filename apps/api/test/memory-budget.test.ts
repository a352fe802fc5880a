/**
 * The memory budget, end to end with real llama-server loads: a second load that does not
 * fit is refused with 409 naming the first slot; with `evict = "idle"` the idle slot is unloaded and
 * the new one loads; a slot with a request in flight is never evicted; `/api/hardware` shows the
 * budget, its holders, and each holder's estimate against its real use.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { estimateLoad } from '@svc/providers/memory'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdStream, sendChat } from './chat-requests'
import { call, type ErrorBody, llamaServerAvailable, loadOk, requestLoad, type SlotBody } from './live'

const available = llamaServerAvailable()
// The model's own context (no -c): the estimate reads it from the GGUF, as llama-server does.
const ARGS = 'args = ["-np", "1", "--threads", "1"]\n'

interface Holder {
  slot: string
  model: string
  estimateBytes: number
  estimate: string
  usedBytes: number | null
  usedBy: string | null
  chargedBytes: number
}
interface Device {
  id: string
  budgetBytes: number
  overridden: boolean
  usedBytes: number
  holders: Holder[]
}

describe.skipIf(!available)('the memory budget with real llama-server loads', () => {
  let dir: string
  let api: ApiProcess
  let estimate: number
  const models: Record<'a' | 'b', string> = { a: '', b: '' }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-budget-'))
    // A 32k context makes the KV cache (16 MiB) the bulk of the estimate: large beside the weights.
    const tiny = await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', contextLength: 32_768 })
    models.a = tiny.path
    models.b = join(dir, 'tiny-b.gguf')
    await copyFile(tiny.path, models.b)
    estimate = (
      await estimateLoad({
        model: { id: 'x', format: 'gguf', provider: 'llm', source: 'local', path: tiny.path },
      })
    ).bytes
    // Room for one of these models, not for two.
    const budgetGb = (estimate * 1.5) / 1024 ** 3
    api = await startApiWithConfig({
      slots: { primary: `${ARGS}restart = "no"\n`, second: `provider = "llm"\n${ARGS}restart = "no"\n` },
      env: { SVC_MEMORY_BUDGET_GB: `ram=${budgetGb.toFixed(6)}` },
    })
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  const ram = async () => {
    const hw = await call<{ memory: { devices: Device[] } }>(api, '/api/hardware')
    const device = hw.body.memory.devices.find((d) => d.id === 'ram')
    if (!device) throw new Error(`no ram device in ${JSON.stringify(hw.body.memory)}`)
    return device
  }

  it('refuses a second load that does not fit, naming the slot that holds the memory', async () => {
    await loadOk(api, 'primary', models.a)
    const refused = await requestLoad<ErrorBody>(api, 'second', { model: models.b }, { wait: false })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('memory.insufficient')
    expect(refused.body.error.message).toMatch(
      /^slot "second" cannot load "tiny-b": it needs ~[\d.]+ MiB \(weights [\d.]+ KiB \+ KV cache 16\.0 MiB \(ctx 32768\)\) and system memory has [\d.]+ (B|KiB|MiB) free of a [\d.]+ MiB budget; held by slot "primary" \(tiny-a, [\d.]+ MiB, (ready|idle)\)\. Unload a slot, or set evict = "idle" in slots\/second\.toml/,
    )
    const second = await call<SlotBody>(api, '/api/slots/second')
    expect(second.body).toMatchObject({ state: 'offline', model: null })
  }, 60_000)

  it('shows the budget, what holds it, and the estimate against the real use', async () => {
    const device = await ram()
    expect(device.overridden).toBe(true)
    expect(device.budgetBytes).toBe(Math.round(Number(((estimate * 1.5) / 1024 ** 3).toFixed(6)) * 1024 ** 3))
    expect(device.holders).toHaveLength(1)
    const [holder] = device.holders
    expect(holder).toMatchObject({ slot: 'primary', model: 'tiny-a', estimateBytes: estimate, usedBy: 'rss' })
    expect(holder?.estimate).toMatch(/^weights [\d.]+ KiB \+ KV cache 16\.0 MiB \(ctx 32768\)$/)
    // llama-server's RSS: its own code and buffers besides the weights; the budget counts the larger.
    expect(holder?.usedBytes).toBeGreaterThan(1024 ** 2)
    expect(holder?.chargedBytes).toBe(Math.max(estimate, holder?.usedBytes ?? 0))
    expect(device.usedBytes).toBe(holder?.chargedBytes)
  })

  it('with evict = "idle", unloads the idle slot and loads the new one', async () => {
    const put = await call(api, '/api/slots/second', {
      method: 'PUT',
      json: { provider: 'llm', evict: 'idle', args: ['-np', '1', '--threads', '1'], restart: 'no' },
    })
    expect(put.status).toBe(200)
    const loaded = await loadOk(api, 'second', models.b)
    expect(loaded.state).toBe('ready')
    const primary = await call<SlotBody>(api, '/api/slots/primary')
    expect(primary.body).toMatchObject({ state: 'offline', model: null, lastError: null })
    expect((await ram()).holders.map((h) => h.slot)).toEqual(['second'])
    const chat = await sendChat(api, { model: 'second', max_tokens: 2 })
    expect(chat.status).toBe(200)
  }, 60_000)

  it('never evicts a slot with a request in flight', async () => {
    await call(api, '/api/slots/primary', {
      method: 'PUT',
      json: { evict: 'idle', args: ['-np', '1', '--threads', '1'], restart: 'no' },
    })
    // A long generation on "second": in flight until the client goes away.
    // The first chunk has come: the request is in flight upstream.
    const stream = await holdStream(api, { model: 'second', content: 'go on', max_tokens: 30_000 })
    try {
      const refused = await requestLoad<ErrorBody>(api, 'primary', { model: models.a }, { wait: false })
      expect(refused.status).toBe(409)
      expect(refused.body.error.message).toContain('held by slot "second" (tiny-b,')
      expect(refused.body.error.message).toContain('serving, 1 request in flight')
      expect(refused.body.error.message).toContain(
        'Unloading every idle slot would not make room (busy: "second")',
      )
      const second = await call<SlotBody>(api, '/api/slots/second')
      expect(second.body).toMatchObject({ state: 'serving', inflight: 1 })
    } finally {
      await stream.stop()
    }
    // Once the request is gone, "second" is idle and gives way.
    const deadline = Date.now() + 10_000
    while ((await call<SlotBody>(api, '/api/slots/second')).body.inflight > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
    const loaded = await loadOk(api, 'primary', models.a)
    expect(loaded.state).toBe('ready')
    expect((await call<SlotBody>(api, '/api/slots/second')).body.state).toBe('offline')
  }, 90_000)
})
