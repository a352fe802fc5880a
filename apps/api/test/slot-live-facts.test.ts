/**
 * A slot card's facts from a real llama-server behind a real API process (issue 39): the memory the
 * loaded model holds and on which device, the context it runs with, the last minute in 5 s buckets
 * after a few requests, and a last error that an unload or the next good load clears.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, LIGHT_ARGS, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

interface Facts extends SlotBody {
  memory: { device: string; bytes: number; estimated: boolean } | null
  context_size: number | null
  metrics: {
    requestsPerMin: number
    series: { bucket_ms: number; requests: number[]; tokens_per_second: (number | null)[] }
  } | null
}

const available = llamaServerAvailable()

describe.skipIf(!available)('a loaded slot’s facts with a real llama-server', () => {
  let api: ApiProcess
  let gguf: string
  const primary = async () => (await call<Facts>(api, '/api/slots/primary')).body

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-slot-facts-'))
    gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
    api = await startApiWithConfig({
      slots: {
        primary: `restart = "no"\n${LIGHT_ARGS}`,
        // No -c and no ctx_size: only the engine can say its context size.
        unsized: 'provider = "llm"\nrestart = "no"\nargs = ["-np", "1", "--threads", "1"]\n',
      },
    })
    await loadOk(api, 'primary', gguf)
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  it('says how much memory the model holds, on which device, and its context size', async () => {
    const slot = await primary()
    expect(slot.memory).toEqual({ device: 'ram', bytes: expect.any(Number), estimated: expect.any(Boolean) })
    expect(slot.memory!.bytes).toBeGreaterThan(0)
    expect(slot.context_size).toBe(256) // -c 256 (LIGHT_ARGS), as llama-server's /props reports it
  })

  it('asks the engine for its context size, with the key svc gave it, where no setting says one', async () => {
    await loadOk(api, 'unsized', gguf)
    try {
      const slot = (await call<Facts>(api, '/api/slots/unsized')).body
      // What llama-server runs this tiny model with (512, its own choice: nothing here sets one); null
      // when /props refused svc for want of the engine's key.
      expect(slot.context_size).toBe(512)
    } finally {
      await call(api, '/api/slots/unsized/unload?wait=true', { method: 'POST' })
    }
  }, 60_000)

  it('keeps the last minute in twelve 5 s buckets after a few requests', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await sendChat(api, {
        model: 'primary',
        content: `hello ${i}`,
        max_tokens: 4,
        ignore_eos: true,
      })
      expect(r.status).toBe(200)
    }
    const { metrics } = await primary()
    expect(metrics?.series.bucket_ms).toBe(5000)
    expect(metrics?.series.requests).toHaveLength(12)
    expect(metrics?.series.tokens_per_second).toHaveLength(12)
    expect(metrics!.series.requests.reduce((a, b) => a + b, 0)).toBe(3)
    expect(metrics!.series.tokens_per_second.some((t) => t !== null && t > 0)).toBe(true)
  })

  it('forgets the last error on an unload, and on the next load that succeeds', async () => {
    const crash = async () => {
      const { upstream } = await primary()
      process.kill(upstream!.pid!, 'SIGKILL')
      return waitForSlot(api, 'primary', (s) => s.state === 'offline' && s.lastError !== null)
    }
    expect((await crash()).lastError).toBeTruthy()
    const unloaded = await call<Facts>(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    expect(unloaded.body).toMatchObject({ state: 'offline', lastError: null })
    expect((await primary()).lastError).toBeNull()
    await loadOk(api, 'primary', gguf)
    expect((await crash()).lastError).toBeTruthy()
    expect(await loadOk(api, 'primary', gguf)).toMatchObject({ lastError: null })
  }, 60_000)
})
