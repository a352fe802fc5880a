/**
 * End to end: a real API process loads real llama-server upstreams with a generated GGUF.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAlive } from '@svc/core/node'
import { startApi, startApiWithConfig, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import parsePrometheus from 'parse-prometheus-text-format'
import { beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import {
  call,
  cli,
  collectEvents,
  LIGHT_ARGS,
  llamaServerAvailable,
  loadOk,
  requestLoad,
  type SlotBody,
  waitForSlot,
} from './live'

const available = llamaServerAvailable()
let gguf: string

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-gguf-'))
  gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
})

describe.skipIf(!available)('slots with a real llama-server', () => {
  it('slot load primary --model <tiny.gguf> reaches ready through starting and warming, and chats', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    const watching = await collectEvents(api, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.to === 'ready'),
    )
    const r = await cli(api, ['slot', 'load', 'primary', '--model', gguf])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/primary is ready with tiny-chat/)
    const transitions = (await watching.done).filter(
      (e) => e.event === 'slot.transition' && e.data.slot === 'primary',
    )
    expect(transitions.map((e) => `${e.data.from}->${e.data.to}`)).toEqual([
      'offline->starting',
      'starting->warming',
      'warming->ready',
    ])

    const chat = await sendChat<{ choices: { message: { content: string } }[] }>(api, {
      model: 'primary',
      content: 'hello',
      max_tokens: 4,
    })
    expect(chat.status).toBe(200)
    expect(typeof chat.body.choices[0]?.message.content).toBe('string')

    const list = await cli(api, ['slot', 'ls'])
    expect(list.stdout).toMatch(/primary\s+llm\s+cpu\s+process\s+(ready|idle)\s+tiny-chat/)
    const models = await cli(api, ['models', 'ls'])
    expect(models.stdout).toMatch(/tiny-chat\s+llm\s+-\s+local\s+yes\s+\S+ \S+\s+primary/)
  }, 60_000)

  it('fails a load with a clear error and a non-zero exit when the model does not exist', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    const r = await cli(api, ['slot', 'load', 'primary', '--model', '/nowhere/x.gguf'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('no model file at /nowhere/x.gguf (model.not_found)')
    const unknown = await requestLoad(api, 'nope', { model: gguf }, { wait: false })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ error: { code: 'slot.not_found' } })
    const bad = await requestLoad(api, 'primary', { model: 42 }, { wait: false })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ error: { code: 'request.invalid', param: 'model' } })
  }, 30_000)

  it('starts exactly one llama-server for two concurrent loads of one model', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    const [a, b] = await Promise.all([
      requestLoad<SlotBody>(api, 'primary', { model: gguf }),
      requestLoad<SlotBody>(api, 'primary', { model: gguf }),
    ])
    expect([a.status, b.status]).toEqual([200, 200])
    expect(a.body.upstream?.pid).toBe(b.body.upstream?.pid)
    const starts = api.output().match(/"from":"offline","to":"starting"/g) ?? []
    expect(starts).toHaveLength(1)
  }, 60_000)

  it('goes offline with lastError when llama-server is killed, and comes back with restart = "on-failure"', async () => {
    await using api = await startApiWithConfig({
      slots: { primary: `${LIGHT_ARGS}restart = "on-failure"\n` },
    })
    const loaded = await loadOk(api, 'primary', gguf)
    const pid = loaded.upstream!.pid!
    const watching = await collectEvents(api, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.from === 'warming' && e.data.to === 'ready'),
    )
    process.kill(pid, 'SIGKILL')
    const events = await watching.done
    const crash = events.find((e) => e.event === 'slot.transition' && e.data.to === 'offline')
    expect(crash?.data.error).toMatch(/llama-server was killed by SIGKILL/)
    expect(events.some((e) => e.event === 'slot.restart' && e.data.attempt === 1)).toBe(true)
    const back = await waitForSlot(api, 'primary', (s) => s.state === 'ready')
    expect(back.upstream?.pid).not.toBe(pid)
    expect(back.restarts).toBe(1)
  }, 60_000)

  it('stays offline with lastError after a crash with restart = "no"', async () => {
    await using api = await startApiWithConfig({ slots: { primary: `${LIGHT_ARGS}restart = "no"\n` } })
    const loaded = await loadOk(api, 'primary', gguf)
    process.kill(loaded.upstream!.pid!, 'SIGKILL')
    const down = await waitForSlot(api, 'primary', (s) => s.state === 'offline')
    expect(down.lastError).toMatch(/killed by SIGKILL/)
    await new Promise((r) => setTimeout(r, 1500))
    expect((await call<SlotBody>(api, '/api/slots/primary')).body.state).toBe('offline')
    const chat = await sendChat(api, { model: 'primary', content: 'x' })
    expect(chat.status).toBe(409)
    expect(chat.body).toMatchObject({ error: { code: 'model.not_loaded' } })
  }, 60_000)

  it('leaves no llama-server behind when the API stops, and adopts or kills what a crashed API left', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'svc-config-'))
    const stateDir = await mkdtemp(join(tmpdir(), 'svc-state-'))
    await writeSvcConfig(configDir, { slots: { primary: LIGHT_ARGS } })

    // A clean stop takes its upstream with it.
    const first = await startApi({ configDir, stateDir })
    const pid1 = (await loadOk(first, 'primary', gguf)).upstream!.pid!
    expect(await first.stop('SIGTERM')).toBe(0)
    expect(isAlive(pid1)).toBe(false)

    // A crashed API (SIGKILL) leaves its upstream running; the next start adopts it while healthy.
    let pid2 = 0
    try {
      await crashAndRecover()
    } finally {
      if (pid2 && isAlive(pid2)) process.kill(pid2, 'SIGKILL') // only if an assertion failed midway
    }

    async function crashAndRecover() {
      const second = await startApi({ configDir, stateDir })
      pid2 = (await loadOk(second, 'primary', gguf)).upstream!.pid!
      await second.stop('SIGKILL')
      expect(isAlive(pid2)).toBe(true)
      const third = await startApi({ configDir, stateDir })
      const adopted = await waitForSlot(third, 'primary', (s) => s.state === 'ready')
      expect(adopted.upstream?.pid).toBe(pid2)
      const chat = await sendChat(third, { model: 'tiny-chat', content: 'x', max_tokens: 2 })
      expect(chat.status).toBe(200)
      await third.stop('SIGKILL')

      // A leftover that cannot be adopted (its model is no longer registered) is killed, not orphaned.
      await writeFile(join(stateDir, 'models', 'registry.json'), '{"models":[]}\n')
      const fourth = await startApi({ configDir, stateDir })
      const deadline = Date.now() + 15_000
      while (isAlive(pid2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect(isAlive(pid2)).toBe(false)
      expect((await call<SlotBody>(fourth, '/api/slots/primary')).body.state).toBe('offline')
      await fourth[Symbol.asyncDispose]()
    }
  }, 120_000)

  it('a streamed chat gives the slot its tokens/s and counts its tokens (llama-server’s timings, no include_usage needed)', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    await loadOk(api, 'primary', gguf)
    const before = await call<{ metrics: { tokensPerS: number | null } | null }>(api, '/api/slots/primary')
    expect(before.body.metrics?.tokensPerS ?? null).toBeNull()
    const streamed = await call(api, '/v1/chat/completions', {
      method: 'POST',
      json: { model: 'primary', stream: true, messages: [{ role: 'user', content: 'x' }], max_tokens: 6 },
    })
    expect(streamed.status).toBe(200)
    expect(String(streamed.body)).toContain('data: [DONE]')
    const after = await call<{ metrics: { tokensPerS: number | null } | null }>(api, '/api/slots/primary')
    expect(after.body.metrics?.tokensPerS).toBeGreaterThan(0)
    const families = parsePrometheus(await (await fetch(`${api.url}/api/metrics`)).text())
    const completion = families
      .find((f) => f.name === 'svc_tokens_total')
      ?.metrics.find((m) => m.labels?.slot === 'primary' && m.labels?.kind === 'completion')
    expect(Number(completion?.value)).toBeGreaterThan(0)
  }, 60_000)

  it('re-exposes llama-server metrics with a slot label next to the slot metrics', async () => {
    await using api = await startApiWithConfig({ slots: { primary: LIGHT_ARGS } })
    await loadOk(api, 'primary', gguf)
    await sendChat(api, { model: 'primary', content: 'x', max_tokens: 2 })
    const res = await fetch(`${api.url}/api/metrics`)
    const text = await res.text()
    expect(res.status, api.output().slice(-3000)).toBe(200)
    const families = parsePrometheus(text)
    const state = families.find((f) => f.name === 'svc_slot_state')
    expect(
      state?.metrics.find((m) => m.labels?.slot === 'primary' && m.value === '1')?.labels?.state,
    ).toMatch(/ready|idle/)
    expect(families.find((f) => f.name === 'svc_slot_load_seconds')?.type).toBe('HISTOGRAM')
    expect(families.find((f) => f.name === 'svc_slot_transitions_total')).toBeDefined()
    const upstream = families.find((f) => f.name.startsWith('llamacpp:'))
    expect(upstream?.metrics[0]?.labels?.slot).toBe('primary')
    const inflight = families.find((f) => f.name === 'svc_slot_inflight')
    expect(inflight?.metrics.find((m) => m.labels?.slot === 'primary')?.value).toBe('0')
  }, 60_000)
})
