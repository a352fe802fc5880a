/**
 * The model library's Hub calls (`searchHub`, `hubRepoInfo`) against the Hub stand-in: GGUF repos only,
 * most downloaded first; a repo's quants with sizes, split shards summed, the projector apart, and its
 * header read remotely through the 302 to the CDN with Range requests (the token never reaches the
 * CDN); the Hub's refusals as svc's errors.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { type HubStandIn, hubToken, startHubStandIn, writeTinyGguf, writeTinyMmproj } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hubRepoInfo, quantNeed, searchHub } from '../src/models'

const alice = hubToken('alice')

describe('the model library against the Hub stand-in', () => {
  let hub: HubStandIn
  let dir: string
  let small: Buffer
  let big: Buffer

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-hub-library-'))
    small = await readFile((await writeTinyGguf(join(dir, 's.gguf'), { contextLength: 2048 })).path)
    big = await readFile((await writeTinyGguf(join(dir, 'b.gguf'), { nLayer: 4, contextLength: 2048 })).path)
    const mmproj = await readFile((await writeTinyMmproj(join(dir, 'm.gguf'))).path)
    hub = await startHubStandIn({
      tokens: { [alice]: 'alice' },
      repos: [
        {
          id: 'tiny/Tiny-Chat-GGUF',
          downloads: 120,
          likes: 7,
          files: {
            'README.md': Buffer.from('# tiny\n'),
            'Tiny-Chat-Q4_K_M.gguf': small,
            'Q8_0/Tiny-Chat-Q8_0-00001-of-00002.gguf': big.subarray(0, 60_000),
            'Q8_0/Tiny-Chat-Q8_0-00002-of-00002.gguf': big.subarray(60_000),
          },
        },
        {
          id: 'tiny/Tiny-Vision-GGUF',
          downloads: 300,
          files: { 'v-Q4_K_M.gguf': small, 'mmproj-v-f16.gguf': mmproj },
        },
        {
          id: 'tiny/tiny-safetensors',
          downloads: 900,
          tags: ['safetensors'],
          files: { 'model.safetensors': small },
        },
        { id: 'tiny/Tiny-Gated-GGUF', gated: 'manual', access: ['alice'], files: { 'g-Q4_K_M.gguf': small } },
        { id: 'tiny/Tiny-Private-GGUF', private: true, access: ['alice'], files: { 'p-Q4_K_M.gguf': small } },
      ],
    })
  })
  afterAll(async () => {
    await hub?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('searches GGUF repos only, most downloaded first, within the limit', async () => {
    const hits = await searchHub({ hubUrl: hub.url }, { query: 'tiny', limit: 10 })
    expect(hits.map((h) => h.id)).toEqual([
      'tiny/Tiny-Vision-GGUF',
      'tiny/Tiny-Chat-GGUF',
      'tiny/Tiny-Gated-GGUF',
    ])
    expect(hits[1]).toMatchObject({ downloads: 120, likes: 7, gated: false, updated: expect.any(String) })
    expect(hits[2]?.gated).toBe('manual')
    expect(await searchHub({ hubUrl: hub.url }, { query: 'tiny', limit: 1 })).toHaveLength(1)
    expect(await searchHub({ hubUrl: hub.url }, { query: 'no-such-thing' })).toEqual([])
  })

  it("lists a repo's quants with sizes (shards summed) and reads the header through the CDN", async () => {
    hub.requests.length = 0
    const info = await hubRepoInfo({ hubUrl: hub.url, accessToken: alice }, 'tiny/Tiny-Chat-GGUF')
    expect(info.quants.map((q) => [q.quant, q.size, q.split])).toEqual([
      ['Q4_K_M', small.length, false],
      ['Q8_0', big.length, true],
    ])
    expect(info.quants[1]?.name).toBe('hf.co/tiny/Tiny-Chat-GGUF:Q8_0')
    expect(info.header).toMatchObject({
      file: 'Tiny-Chat-Q4_K_M.gguf',
      architecture: 'llama',
      layers: 2,
      contextLength: 2048,
    })
    expect(info.headerError).toBeNull()
    // The header came from the CDN in Range requests; the token went to the Hub only.
    const cdn = hub.requests.filter((r) => r.origin === 'cdn')
    expect(cdn.length).toBeGreaterThan(0)
    expect(cdn.every((r) => r.range?.startsWith('bytes=') && r.authorization === undefined)).toBe(true)
    expect(hub.requests.some((r) => r.origin === 'hub' && r.authorization === `Bearer ${alice}`)).toBe(true)
    // The KV cache of the training context is counted beside the weights.
    const need = quantNeed(info.quants[0]!, info)
    expect(need.bytes).toBeGreaterThan(small.length)
    expect(need.detail).toMatch(/KV cache .* \(ctx 2048\)/)
  })

  it('lists a vision repo with its projector apart, and counts it in the need', async () => {
    const info = await hubRepoInfo({ hubUrl: hub.url }, 'tiny/Tiny-Vision-GGUF')
    expect(info.quants.map((q) => q.quant)).toEqual(['Q4_K_M'])
    expect(info.mmproj).toEqual([{ path: 'mmproj-v-f16.gguf', size: expect.any(Number) }])
    expect(quantNeed(info.quants[0]!, info).detail).toMatch(/projector/)
  })

  it("answers a gated repo's file list, but not its header, without a token", async () => {
    const info = await hubRepoInfo({ hubUrl: hub.url }, 'tiny/Tiny-Gated-GGUF')
    expect(info.quants.map((q) => q.quant)).toEqual(['Q4_K_M'])
    expect(info.header).toBeNull()
    expect(info.headerError).toMatch(/g-Q4_K_M\.gguf/)
    const approved = await hubRepoInfo({ hubUrl: hub.url, accessToken: alice }, 'tiny/Tiny-Gated-GGUF')
    expect(approved.header?.architecture).toBe('llama')
  })

  it("turns the Hub's refusals into svc's errors", async () => {
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as SvcError,
      )
    const priv = await refused(hubRepoInfo({ hubUrl: hub.url }, 'tiny/Tiny-Private-GGUF'))
    expect(priv).toBeInstanceOf(SvcError)
    // The Hub tells an anonymous caller nothing about a private repo: it reads as missing.
    expect(priv).toMatchObject({ code: 'model.not_found', status: 404 })
    expect(priv?.message).toMatch(/tiny\/Tiny-Private-GGUF.*HF_TOKEN/)
    const missing = await refused(hubRepoInfo({ hubUrl: hub.url, accessToken: alice }, 'tiny/nothing'))
    expect(missing).toMatchObject({ code: 'model.not_found', status: 404 })
    hub.failNext(429)
    const limited = await refused(searchHub({ hubUrl: hub.url }, { query: 'tiny' }))
    expect(limited).toMatchObject({ code: 'hub.rate_limited', status: 429 })
    const down = await refused(searchHub({ hubUrl: 'http://127.0.0.1:1' }, { query: 'tiny' }))
    expect(down).toMatchObject({ code: 'upstream.unavailable', status: 502 })
    expect(down?.message).toContain('http://127.0.0.1:1')
  })
})
