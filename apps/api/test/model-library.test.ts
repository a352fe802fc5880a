/**
 * The model library's routes (`routes/hub-api.ts`) against the Hub stand-in: search, a repo's quants
 * with whether each fits the slot's memory budget, a pull by Hub name with its progress events, disk
 * use, cancel and delete by a percent-encoded Hub id, and the Hub's refusals as clear errors.
 */
import { allows, classify } from '@svc/auth'
import type { ModelPullEvent } from '@svc/core'
import { detectHardware } from '@svc/providers'
import { type HubStandIn, startHubStandIn, tinyChatQuants } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp } from './helpers'

const REPO = 'tiny/Tiny-Chat-GGUF'
const Q4 = `hf.co/${REPO}:Q4_K_M`

interface Quant {
  quant: string
  name: string
  size: number
  need: number
  fits: boolean | null
  reason: string
  present: boolean
}

describe('the model library routes', () => {
  let hub: HubStandIn
  let small: Buffer
  let big: Buffer
  let app: Awaited<ReturnType<typeof testApp>>['app']
  let deps: Awaited<ReturnType<typeof testApp>>['deps']

  const get = async <T>(path: string) => {
    const res = await app.request(path)
    return { status: res.status, body: (await res.json()) as T }
  }
  const send = async <T>(method: string, path: string, json?: unknown) => {
    const res = await app.request(path, {
      method,
      ...(json !== undefined
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }
        : {}),
    })
    return { status: res.status, body: (await res.json()) as T }
  }

  beforeAll(async () => {
    // A budget between the two quants' needs: the small one fits, the big one does not.
    const quants = tinyChatQuants({ contextLength: 512 })
    small = quants.q4
    big = quants.f32
    hub = await startHubStandIn({ repos: [{ id: REPO, downloads: 10, files: quants.files }] })
    ;({ app, deps } = await testApp(
      { hub: { hubUrl: hub.url } },
      {
        hardware: {
          detect: () =>
            detectHardware({ env: { PATH: '' }, probeEngine: async () => ({ ok: false, error: 'none' }) }),
        },
        memory: { budgetGb: { all: quants.budgetGb, byDevice: {} } },
        hub: { hubUrl: hub.url },
      },
    ))
  })
  afterAll(async () => {
    deps?.pulls?.stop()
    await hub?.[Symbol.asyncDispose]()
  })

  it('searches the Hub, and refuses a limit out of range with 400', async () => {
    const found = await get<{ models: { id: string; downloads: number }[] }>('/api/models/search?q=tiny-chat')
    expect(found.status).toBe(200)
    expect(found.body.models).toEqual([expect.objectContaining({ id: REPO, downloads: 10 })])
    const bad = await get<{ error: { code: string; param: string } }>('/api/models/search?q=x&limit=0')
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'request.invalid', param: 'limit' })
  })

  it("lists a repo's quants and says which fit the slot's memory budget, and why not", async () => {
    const { status, body } = await get<{
      architecture: string
      layers: number
      context_length: number
      device: { id: string } | null
      quants: Quant[]
    }>(`/api/models/hub/${REPO}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({ architecture: 'llama', layers: 2, context_length: 512 })
    expect(body.device?.id).toBe('ram')
    const [q4, f32] = body.quants
    expect(q4).toMatchObject({ quant: 'Q4_K_M', name: Q4, size: small.length, fits: true, present: false })
    expect(f32).toMatchObject({ quant: 'F32', size: big.length, fits: false })
    expect(f32?.reason).toMatch(/needs .* \(weights .* \+ KV cache .*\): more than .* budget/)
    expect(q4!.need).toBeGreaterThan(small.length)
  })

  it('answers a missing repo 404, a malformed one 400, an unknown slot 404', async () => {
    const missing = await get<{ error: { code: string; message: string } }>('/api/models/hub/tiny/nothing')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('model.not_found')
    expect(missing.body.error.message).toMatch(/tiny\/nothing.*HF_TOKEN/)
    expect((await get('/api/models/hub/tiny/..%2F..')).status).toBe(400)
    expect((await get(`/api/models/hub/${REPO}?slot=nope`)).status).toBe(404)
  })

  it('pulls a Hub name with progress events, counts it in disk use, and deletes it by its encoded id', async () => {
    const events: ModelPullEvent[] = []
    const off = deps.slots.bus.on('model.pull', (e) => events.push(e))
    const before = await get<{ models_bytes: number; free_bytes: number | null }>('/api/models/disk')
    expect(before.body.free_bytes).toBeGreaterThan(0)
    const started = await send<{ model: string; status: string }>('POST', '/api/models/pull', { model: Q4 })
    expect(started.status).toBe(202)
    const id = started.body.model
    await expect.poll(() => events.at(-1)?.status, { timeout: 20_000 }).toBe('done')
    off()
    expect(events.every((e) => e.model === id)).toBe(true)
    expect(events.at(-1)).toMatchObject({ done: small.length, total: small.length })

    const again = await send<{ status: string }>('POST', '/api/models/pull', { model: Q4 })
    expect(again).toMatchObject({ status: 200, body: { status: 'done' } })
    const quants = await get<{ quants: Quant[] }>(`/api/models/hub/${REPO}`)
    expect(quants.body.quants[0]?.present).toBe(true)
    const after = await get<{ models_bytes: number }>('/api/models/disk')
    expect(after.body.models_bytes - before.body.models_bytes).toBe(small.length)

    const encoded = encodeURIComponent(id)
    const cancelled = await send<{ cancelled: boolean }>('DELETE', `/api/models/${encoded}/pull`)
    expect(cancelled).toMatchObject({ status: 200, body: { cancelled: false } })
    const deleted = await send<{ id: string; deleted: boolean }>('DELETE', `/api/models/${encoded}`)
    expect(deleted).toMatchObject({ status: 200, body: { id, deleted: true } })
    const gone = await get<{ models_bytes: number }>('/api/models/disk')
    expect(gone.body.models_bytes).toBe(before.body.models_bytes)
  })

  it('cancels a slow pull by its encoded id', async () => {
    hub.throttle(REPO, 'Tiny-Chat-F32.gguf', 20_000)
    try {
      const started = await send<{ model: string }>('POST', '/api/models/pull', {
        model: `hf.co/${REPO}:F32`,
      })
      expect(started.status).toBe(202)
      const encoded = encodeURIComponent(started.body.model)
      const cancelled = await send<{ cancelled: boolean }>('DELETE', `/api/models/${encoded}/pull`)
      expect(cancelled.body, JSON.stringify(cancelled.body)).toMatchObject({ cancelled: true })
      await expect.poll(() => deps.pulls?.get(started.body.model), { timeout: 5_000 }).toBeUndefined()
    } finally {
      hub.throttle(REPO, 'Tiny-Chat-F32.gguf', undefined)
    }
  })

  it("says the Hub's refusals: rate limit 429, unreachable 502", async () => {
    hub.failNext(429)
    const limited = await get<{ error: { code: string; message: string } }>('/api/models/search?q=tiny')
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('hub.rate_limited')
    const { app: offline } = await testApp({ hub: { hubUrl: 'http://127.0.0.1:1' } })
    const down = await offline.request('/api/models/search?q=tiny')
    expect(down.status).toBe(502)
    expect(((await down.json()) as { error: { message: string } }).error.message).toContain('127.0.0.1:1')
  })

  it('lets every reading scope search and read repos, and only admin pull or delete', () => {
    for (const path of ['/api/models/search', `/api/models/hub/${REPO}`, '/api/models/disk']) {
      expect(classify('GET', path), path).toBe('api-read')
      expect(allows('read-only', classify('GET', path))).toBe(true)
      expect(allows('v1-only', classify('GET', path))).toBe(false)
    }
    const encoded = `/api/models/${encodeURIComponent(Q4)}`
    for (const [method, path] of [
      ['POST', '/api/models/pull'],
      ['DELETE', encoded],
      ['DELETE', `${encoded}/pull`],
    ] as const) {
      expect(classify(method, path), `${method} ${path}`).toBe('slot-mutation')
      expect(allows('all', classify(method, path))).toBe(false)
      expect(allows('admin', classify(method, path))).toBe(true)
    }
  })
})
