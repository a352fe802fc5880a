/**
 * Faults suite: what a user sees when an upstream dies or hangs, and when svc's port is
 * taken — against a real API process and a real llama-server with the tiny random-weight GGUF.
 *
 * - `kill -9` of llama-server mid-stream: the client's stream ends with an SSE error event (not a cut
 *   connection, not `[DONE]`), the slot goes offline with the reason and restarts, in-flight is 0.
 * - llama-server stopped (SIGSTOP: it accepts connections and never answers): 504 after
 *   SVC_UPSTREAM_TIMEOUT, the lease released (in-flight 0, slot idle), and it serves again once it
 *   continues.
 * - The API's port taken by a running svc: the second one exits non-zero naming the port, before it
 *   touches the first one's upstreams (same state directory).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAlive } from '@svc/core/node'
import { type ApiProcess, startApi, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat, streamChat } from '../chat-requests'
import { call, collectEvents, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from '../live'

const available = llamaServerAvailable()

describe.skipIf(!available)('faults around a real llama-server', () => {
  let dir: string
  let gguf: string
  let api: ApiProcess

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-faults-'))
    gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
    const configDir = join(dir, 'config')
    await writeSvcConfig(configDir, {
      slots: {
        // Context large enough for a long stream; one thread (two cores are shared).
        primary: 'restart = "on-failure"\nargs = ["-c", "4096", "-np", "1", "--threads", "1"]\n',
      },
    })
    api = await startApi({ configDir, stateDir: join(dir, 'state'), env: { SVC_UPSTREAM_TIMEOUT: '2' } })
    await loadOk(api, 'primary', gguf)
  }, 120_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const slot = async () => (await call<SlotBody>(api, '/api/slots/primary')).body
  const chat = (extra: Record<string, unknown> = {}) =>
    sendChat(api, { model: 'primary', max_tokens: 4, ...extra })

  it('answers 504 when llama-server hangs, releases the lease, and serves again once it continues', async () => {
    const pid = (await slot()).upstream!.pid!
    process.kill(pid, 'SIGSTOP')
    try {
      const t0 = Date.now()
      const r = await chat()
      expect(r.status).toBe(504)
      expect(r.body).toMatchObject({ error: { code: 'upstream.timeout' } })
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900)
      expect(await slot()).toMatchObject({ state: 'idle', inflight: 0 })
    } finally {
      process.kill(pid, 'SIGCONT')
    }
    expect((await chat()).status).toBe(200)
    expect(await slot()).toMatchObject({ state: 'idle', inflight: 0 })
  }, 60_000)

  it('ends a stream with an SSE error event when llama-server is killed mid-stream, then restarts', async () => {
    const pid = (await slot()).upstream!.pid!
    const watching = await collectEvents(api, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.from === 'warming' && e.data.to === 'ready'),
    )
    const res = await streamChat(api, {
      model: 'primary',
      content: 'tell me everything',
      max_tokens: 3000,
      ignore_eos: true,
    })
    expect(res.status).toBe(200)
    const decoder = new TextDecoder()
    let text = ''
    let killed = false
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true })
      if (!killed && text.includes('data: {')) {
        killed = true
        expect(await slot()).toMatchObject({ state: 'serving', inflight: 1 })
        process.kill(pid, 'SIGKILL')
      }
    }
    expect(killed).toBe(true)
    const events = text.trim().split('\n\n')
    expect(events.at(-1)).toMatch(/^data: \{"error":\{"code":"upstream.unavailable"/)
    expect(text).not.toContain('[DONE]')
    const now = await slot()
    expect(now.inflight).toBe(0)
    expect(now.state).not.toBe('serving')

    const seen = await watching.done
    const crash = seen.find((e) => e.event === 'slot.transition' && e.data.to === 'offline')
    expect(crash?.data.error).toMatch(/killed by SIGKILL/)
    const back = await waitForSlot(api, 'primary', (s) => s.state === 'ready')
    expect(back).toMatchObject({ inflight: 0, restarts: 1 })
    expect(back.upstream?.pid).not.toBe(pid)
    expect(isAlive(pid)).toBe(false)
    expect((await chat()).status).toBe(200)
    expect(await slot()).toMatchObject({ state: 'idle', inflight: 0 })
  }, 90_000)

  it('exits with a clear error when its port is taken, leaving the running svc and its upstream alone', async () => {
    const pid = (await slot()).upstream!.pid!
    const second = await startApi({
      configDir: api.configDir,
      stateDir: api.stateDir,
      env: { SVC_PORT: String(api.port), SVC_UPSTREAM_TIMEOUT: '2' },
    }).then(
      () => undefined,
      (error: Error) => error.message,
    )
    expect(second).toMatch(/API exited with 1 before listening/)
    expect(second).toContain('EADDRINUSE')
    expect(second).toContain(String(api.port))
    expect(isAlive(pid)).toBe(true)
    expect((await slot()).upstream?.pid).toBe(pid)
    expect((await chat()).status).toBe(200)
  }, 60_000)
})
