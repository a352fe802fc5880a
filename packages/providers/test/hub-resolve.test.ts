/**
 * The model store and Hub names, against the Hub stand-in: what a name resolves to, what a pull puts
 * where (and registers only once complete), the Hub's refusals as svc's errors, and a pulled name
 * loading with the Hub gone.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatBytes } from '@svc/core'
import {
  buildTinyGguf,
  type HubStandIn,
  hubToken,
  splitFileName,
  splitGguf,
  startHubStandIn,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { estimateLoad } from '../src/memory/estimate'
import { type HubConfig, ModelStore } from '../src/models/index'

const alice = hubToken('alice')
const bob = hubToken('bob')
const weights = buildTinyGguf({ seed: 5 }).bytes
const shards = splitGguf(buildTinyGguf({ seed: 6 }).bytes, 2)
const noProgress = () => {}

describe('Hub names in the model store', () => {
  let hub: HubStandIn
  let stateDir: string
  const open = (config: Partial<HubConfig> = {}) =>
    ModelStore.open({ stateDir, catalogue: [], hub: { hubUrl: hub.url, ...config } })
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as Record<string, unknown>,
    )

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'svc-hub-store-'))
    hub = await startHubStandIn({
      tokens: { [alice]: 'alice', [bob]: 'bob' },
      repos: [
        { id: 'Org/Model-GGUF', files: { 'Model-Q4_K_M.gguf': weights, 'sub/Model-Q8_0.gguf': weights } },
        {
          id: 'Org/Split-GGUF',
          files: { [splitFileName('S-BF16', 0, 2)]: shards[0]!, [splitFileName('S-BF16', 1, 2)]: shards[1]! },
        },
        { id: 'Org/Gated-GGUF', gated: 'auto', access: ['alice'], files: { 'G-Q4_K_M.gguf': weights } },
        { id: 'Org/Private-GGUF', private: true, access: ['alice'], files: { 'P-Q4_K_M.gguf': weights } },
        { id: 'Org/Bad-GGUF', files: { 'B-Q4_K_M.gguf': weights }, corrupt: ['B-Q4_K_M.gguf'] },
      ],
    })
  })
  afterAll(async () => {
    await hub?.[Symbol.asyncDispose]()
    if (stateDir) await rm(stateDir, { recursive: true, force: true })
  })

  it('resolves a name to files pinned at the commit, registered only once pulled', async () => {
    const store = await open()
    const entry = await store.resolve('hf:org/model-gguf')
    const sha = hub.sha('Org/Model-GGUF')
    expect(entry).toMatchObject({
      id: 'hf.co/Org/Model-GGUF:Q4_K_M',
      provider: 'llm',
      source: 'pulled',
      url: `${hub.url}/Org/Model-GGUF/resolve/${sha}/Model-Q4_K_M.gguf`,
      size: weights.length,
      hub: { repo: 'Org/Model-GGUF', revision: sha, file: 'Model-Q4_K_M.gguf', quant: 'Q4_K_M' },
    })
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect((await store.list()).map((m) => m.id)).not.toContain(entry.id)
    const pulled = await store.pull(entry, noProgress, new AbortController().signal)
    expect(pulled.path).toBe(
      join(stateDir, 'models', 'hf', 'org', 'model-gguf', 'q4_k_m', 'Model-Q4_K_M.gguf'),
    )
    expect((await store.list()).map((m) => m.id)).toContain(entry.id)
    const q8 = await store.resolve('hf.co/Org/Model-GGUF:sub/Model-Q8_0.gguf')
    expect(q8.id).toBe('hf.co/Org/Model-GGUF:Q8_0')
  })

  it('pulls every shard of a split beside the first, and removes them all', async () => {
    const store = await open()
    const entry = await store.resolve('hf.co/Org/Split-GGUF:bf16')
    expect(entry.parts).toHaveLength(1)
    const seen: { done: number; total: number | null }[] = []
    const pulled = await store.pull(entry, (p) => seen.push(p), new AbortController().signal)
    const total = shards[0]!.length + shards[1]!.length
    expect(pulled).toMatchObject({ size: total })
    expect(seen.at(-1)).toEqual({ done: total, total })
    expect(await store.isPresent(entry)).toBe(true)
    // The memory estimate counts every shard's weights, not the first's alone.
    expect((await estimateLoad({ model: pulled })).detail).toContain(`weights ${formatBytes(total)}`)
    const dir = join(stateDir, 'models', 'hf', 'org', 'split-gguf')
    expect((await readdir(join(dir, 'bf16'))).sort()).toEqual([
      splitFileName('S-BF16', 0, 2),
      splitFileName('S-BF16', 1, 2),
    ])
    await store.remove(pulled)
    expect(await readdir(dir).catch(() => 'gone')).toBe('gone')
    expect((await store.list()).map((m) => m.id)).not.toContain(entry.id)
  })

  it('fails a corrupt download on its sha256, with no ref and no file', async () => {
    const store = await open()
    const entry = await store.resolve('hf.co/Org/Bad-GGUF:Q4_K_M')
    const error = await refusal(store.pull(entry, noProgress, new AbortController().signal))
    expect(String(error?.message)).toMatch(/checksum mismatch/)
    expect((await store.list()).map((m) => m.id)).not.toContain(entry.id)
    expect(await readdir(join(stateDir, 'models', 'hf', 'org'))).not.toContain('bad-gguf')
  })

  it('says what the Hub refused: gated, token not approved, private, bad token, rate limit, unreachable', async () => {
    const gated = await refusal((await open()).resolve('hf.co/Org/Gated-GGUF'))
    expect(gated).toMatchObject({ code: 'hub.unauthorized', status: 401 })
    expect(gated?.message).toMatch(/Org\/Gated-GGUF is a gated repo.*HF_TOKEN/)
    const notApproved = await refusal((await open({ accessToken: bob })).resolve('hf.co/Org/Gated-GGUF'))
    expect(notApproved).toMatchObject({ code: 'hub.unauthorized', status: 403 })
    expect(notApproved?.message).toMatch(/refused HF_TOKEN for the gated repo Org\/Gated-GGUF/)
    expect(await (await open({ accessToken: alice })).resolve('hf.co/Org/Gated-GGUF')).toMatchObject({
      id: 'hf.co/Org/Gated-GGUF:Q4_K_M',
    })

    const hidden = await refusal((await open()).resolve('hf.co/Org/Private-GGUF'))
    expect(hidden).toMatchObject({ code: 'model.not_found', status: 404 })
    expect(hidden?.message).toMatch(/no public repo Org\/Private-GGUF \(a private one needs HF_TOKEN\)/)
    const missing = await refusal((await open({ accessToken: bob })).resolve('hf.co/Org/Nope'))
    expect(missing).toMatchObject({ code: 'model.not_found', status: 404 })

    const unknownToken = await refusal(
      (await open({ accessToken: hubToken('mallory') })).resolve('hf.co/Org/Model-GGUF'),
    )
    expect(unknownToken).toMatchObject({ code: 'hub.unauthorized', status: 401 })
    const notAToken = await refusal((await open({ accessToken: 'abc' })).resolve('hf.co/Org/Model-GGUF'))
    expect(notAToken).toMatchObject({ code: 'request.invalid', status: 400 })
    expect(notAToken?.message).toMatch(/HF_TOKEN .*hf_/)

    hub.failNext(429)
    expect(await refusal((await open()).resolve('hf.co/Org/Model-GGUF:Q8_0'))).toMatchObject({
      code: 'hub.rate_limited',
      status: 429,
    })
    const down = await refusal(
      ModelStore.open({ stateDir, catalogue: [], hub: { hubUrl: 'http://127.0.0.1:9' } }).then((s) =>
        s.resolve('hf.co/Org/Other-GGUF'),
      ),
    )
    expect(down).toMatchObject({ code: 'upstream.unavailable', status: 502 })
    expect(down?.message).toContain('http://127.0.0.1:9')
  })

  it('pulls a private repo with a member’s token, which reaches the Hub and never the CDN', async () => {
    const store = await open({ accessToken: alice })
    const entry = await store.resolve('hf.co/Org/Private-GGUF')
    const before = hub.requests.length
    const pulled = await store.pull(entry, noProgress, new AbortController().signal)
    expect(pulled.path).toBeDefined()
    const seen = hub.requests.slice(before)
    expect(seen.find((r) => r.origin === 'hub')?.authorization).toBe(`Bearer ${alice}`)
    expect(seen.filter((r) => r.origin === 'cdn').map((r) => r.authorization)).toEqual([undefined])
  })

  it('loads a pulled name without the Hub (with its quant, or without)', async () => {
    const offline = await ModelStore.open({ stateDir, catalogue: [], hub: { hubUrl: 'http://127.0.0.1:9' } })
    expect(await offline.resolve('hf.co/org/model-gguf:q4_k_m')).toMatchObject({
      id: 'hf.co/Org/Model-GGUF:Q4_K_M',
    })
    const untagged = await offline.resolve('hf.co/Org/Model-GGUF')
    expect(untagged.path).toBeDefined()
  })
})
