/**
 * Spare slots (issue 40, point 1), end to end with real llama-servers: `primary` loads on request,
 * and the memory budget has room for a second chat model beside it. Alternating A/B requests open a
 * spare `primary-2` for B instead of swapping: both serve, no upstream is started again, `/api/slots`
 * says which slot is whose spare; 20 interleaved concurrent requests are each answered by the model
 * they named; a third model that needs room evicts the spare before an older named slot; the spare
 * idles out after its parent's `unload_after` and goes (`slot.removed`). With a budget that holds
 * only one model, no spare opens and the slot swaps as before.
 *
 * The budget is set from what one engine really holds here (its RSS, which the budget charges once
 * a model is loaded) and the estimate of a load (what it charges before), so the test means the same
 * on any machine.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { estimateLoad } from '@svc/providers/memory'
import { type ApiProcess, startApiWithConfig, startLlamaServer, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, collectEvents, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()
const ARGS = ['-np', '1', '--threads', '1']
const CTX = 32_768
const LLM = `args = ${JSON.stringify(ARGS)}\nrestart = "no"\n`
const PRIMARY = `${LLM}load_on_request = true\n`

interface SpareBody extends SlotBody {
  spare_of: string | null
}
interface Answer {
  model?: string
  error?: { code: string; message: string }
}

/** What one engine with the tiny model holds (RSS after one answer) and what a load is estimated at. */
async function measure(model: string): Promise<{ held: number; estimate: number }> {
  const estimate = (
    await estimateLoad({
      model: { id: 'x', format: 'gguf', provider: 'llm', source: 'local', path: model },
      args: ARGS,
    })
  ).bytes
  await using server = await startLlamaServer({ model, ctxSize: CTX, extraArgs: ARGS })
  await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
  })
  const status = await readFile(`/proc/${server.pid}/status`, 'utf8')
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return { held: Math.max(rssKb * 1024, estimate), estimate }
}

const gb = (bytes: number) => `ram=${(bytes / 1024 ** 3).toFixed(6)}`

async function slots(api: ApiProcess): Promise<SpareBody[]> {
  return (await call<{ slots: SpareBody[] }>(api, '/api/slots')).body.slots
}

async function chat(api: ApiProcess, model: string) {
  const r = await sendChat<Answer>(api, { model, max_tokens: 4 })
  return { status: r.status, model: r.body.model, error: r.body.error }
}

describe.skipIf(!available)('spare slots: two models at once when memory allows', () => {
  let dir: string
  let api: ApiProcess
  const refs = { a: 'tiny-a', b: 'tiny-b', c: 'tiny-c', d: 'tiny-d' }
  let sizes: { held: number; estimate: number }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-spares-'))
    const a = await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', contextLength: CTX })
    for (const ref of [refs.b, refs.c, refs.d]) await copyFile(a.path, join(dir, `${ref}.gguf`))
    sizes = await measure(a.path)
    // `side` holds D, primary A: room for B beside both (a spare), never for a fourth model.
    const budget = 2.5 * sizes.held + sizes.estimate
    api = await startApiWithConfig({
      slots: {
        primary: PRIMARY,
        side: `provider = "llm"\n${LLM}`,
        other: `provider = "llm"\n${LLM}load_on_request = true\naccepts = ["${refs.c}"]\n`,
      },
      env: { SVC_MEMORY_BUDGET_GB: gb(budget) },
    })
    // Loading each file once registers its ref; `side` is loaded first, so it is the least recently used.
    await loadOk(api, 'side', join(dir, 'tiny-d.gguf'))
    await loadOk(api, 'other', join(dir, 'tiny-c.gguf'))
    await call(api, '/api/slots/other/unload?wait=true', { method: 'POST' })
    await loadOk(api, 'primary', join(dir, 'tiny-b.gguf'))
    await loadOk(api, 'primary', a.path)
  }, 180_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('opens primary-2 for B beside A: alternating requests both serve and nothing reloads', async () => {
    const first = [await chat(api, refs.b), await chat(api, refs.a)]
    expect(first.map((r) => [r.status, r.model])).toEqual([
      [200, refs.b],
      [200, refs.a],
    ])
    const before = await slots(api)
    const primary = before.find((s) => s.name === 'primary')!
    const spare = before.find((s) => s.name === 'primary-2')
    expect(spare, JSON.stringify(before)).toMatchObject({ spare_of: 'primary', model: refs.b })
    expect(primary).toMatchObject({ spare_of: null, model: refs.a })
    // The spare is listed right after its parent, so a reader sees the family together.
    expect(before.map((s) => s.name).indexOf('primary-2')).toBe(
      before.map((s) => s.name).indexOf('primary') + 1,
    )
    const pids = [primary.upstream?.pid, spare?.upstream?.pid]
    expect(pids.every((p) => typeof p === 'number')).toBe(true)

    for (const model of [refs.b, refs.a, refs.b, refs.a, refs.b, refs.a]) {
      const r = await chat(api, model)
      expect([r.status, r.model]).toEqual([200, model])
    }
    const after = await slots(api)
    expect(after.find((s) => s.name === 'primary')?.upstream?.pid).toBe(pids[0])
    expect(after.find((s) => s.name === 'primary-2')?.upstream?.pid).toBe(pids[1])
    expect(after.filter((s) => s.spare_of === 'primary').map((s) => s.name)).toEqual(['primary-2'])
    // Naming the slot still reaches the slot's own model.
    expect(await chat(api, 'primary')).toMatchObject({ status: 200, model: refs.a })
    // A client lists B by its id; the spare is no model name of its own.
    const listed = (await call<{ data: { id: string }[] }>(api, '/v1/models')).body.data.map((m) => m.id)
    expect(listed).toEqual(expect.arrayContaining(['primary', refs.a, refs.b]))
    expect(listed).not.toContain('primary-2')
  }, 120_000)

  it('answers 20 interleaved concurrent A/B requests each from the model it named, losing none', async () => {
    const asked = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? refs.a : refs.b))
    const answers = await Promise.all(asked.map((model) => chat(api, model)))
    expect(answers.map((r) => [r.status, r.model])).toEqual(asked.map((m) => [200, m]))
    const now = await slots(api)
    expect(now.find((s) => s.name === 'primary')?.model).toBe(refs.a)
    expect(now.find((s) => s.name === 'primary-2')?.model).toBe(refs.b)
  }, 120_000)

  it('evicts the spare before an older named slot when a third model needs the room', async () => {
    const watch = await collectEvents(api, (events) =>
      events.some((e) => e.event === 'slot.removed' && e.data.slot === 'primary-2'),
    )
    const r = await chat(api, refs.c)
    expect([r.status, r.model, r.error]).toEqual([200, refs.c, undefined])
    const events = await watch.done
    const evicted = events.find((e) => e.event === 'slot.auto' && e.data.reason === 'memory')
    expect(evicted?.data).toMatchObject({ slot: 'primary-2', action: 'unload', for: 'other' })
    expect(events.find((e) => e.event === 'slot.removed')?.data).toMatchObject({ spare_of: 'primary' })
    const now = await slots(api)
    expect(now.map((s) => s.name)).not.toContain('primary-2')
    expect(now.find((s) => s.name === 'side')?.model).toBe(refs.d)
    expect(now.find((s) => s.name === 'primary')?.model).toBe(refs.a)
    await call(api, '/api/slots/other/unload?wait=true', { method: 'POST' })
  }, 120_000)

  it("idles out after its parent's unload_after, disappears and tells the dashboard", async () => {
    const put = await call(api, '/api/slots/primary', {
      method: 'PUT',
      json: { args: ARGS, restart: 'no', load_on_request: true, unload_after: '2s' },
    })
    expect(put.status).toBe(200)
    const watch = await collectEvents(api, (events) => events.some((e) => e.event === 'slot.removed'))
    expect(await chat(api, refs.b)).toMatchObject({ status: 200, model: refs.b })
    const added = watch.events.find((e) => e.event === 'slot.added')
    expect(added?.data).toMatchObject({ slot: 'primary-2', spare_of: 'primary', provider: 'llm' })
    // A spare has no file of its own: its settings are its parent's.
    const refused = await call(api, '/api/slots/primary-2', { method: 'PUT', json: { args: ARGS } })
    expect(refused.status).toBe(400)
    const events = await watch.done
    expect(
      events.find((e) => e.event === 'slot.auto' && e.data.slot === 'primary-2' && e.data.action === 'unload')
        ?.data,
    ).toMatchObject({
      reason: 'idle',
      model: refs.b,
    })
    expect(events.at(-1)).toMatchObject({ event: 'slot.removed', data: { slot: 'primary-2' } })
    expect((await slots(api)).map((s) => s.name)).not.toContain('primary-2')
    expect((await call(api, '/api/slots/primary-2')).status).toBe(404)
    // Its gauges go with it (its counters stay: they count what happened).
    const metrics = String((await call<string>(api, '/api/metrics')).body)
    expect(metrics).toMatch(/svc_slot_state\{slot="primary",state="(ready|idle)"\} 1/)
    expect(metrics).not.toMatch(/svc_slot_(state|inflight|queue_depth)\{slot="primary-2"/)
  }, 60_000)
})

describe.skipIf(!available)('spare slots: none when memory holds only one model', () => {
  let dir: string
  let api: ApiProcess

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-spares-short-'))
    const a = await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', contextLength: CTX })
    await copyFile(a.path, join(dir, 'tiny-b.gguf'))
    const sizes = await measure(a.path)
    // Room for one loaded engine and a load's estimate, never for a second engine beside it.
    api = await startApiWithConfig({
      slots: { primary: PRIMARY },
      env: { SVC_MEMORY_BUDGET_GB: gb(sizes.held + sizes.estimate / 2) },
    })
    await loadOk(api, 'primary', join(dir, 'tiny-b.gguf'))
    await loadOk(api, 'primary', a.path)
  }, 120_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('swaps primary as before: every request answered by its model, no spare opened', async () => {
    const watch = await collectEvents(api, () => false, 60_000)
    const pids: unknown[] = []
    for (const model of ['tiny-b', 'tiny-a', 'tiny-b']) {
      const r = await chat(api, model)
      expect([r.status, r.model]).toEqual([200, model])
      const primary = await waitForSlot(api, 'primary', (s) => s.model === model)
      pids.push(primary.upstream?.pid)
    }
    expect(new Set(pids).size).toBe(3) // a new engine each time: the swap
    expect((await slots(api)).filter((s) => s.spare_of !== null)).toEqual([])
    expect(watch.events.some((e) => e.event === 'slot.added')).toBe(false)
  }, 120_000)

  it('answers 10 interleaved concurrent A/B requests through swaps, each from the model it named', async () => {
    const asked = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'tiny-a' : 'tiny-b'))
    const answers = await Promise.all(asked.map((model) => chat(api, model)))
    expect(answers.map((r) => [r.status, r.model])).toEqual(asked.map((m) => [200, m]))
    expect((await slots(api)).filter((s) => s.spare_of !== null)).toEqual([])
  }, 120_000)
})
