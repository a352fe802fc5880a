import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cacheIdOf, createImageCache } from '../src/image/image-cache'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-image-cache-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function manualClock(start = 1_700_000_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

const png = (size: number, fill = 1) => new Uint8Array(size).fill(fill)

describe('image cache', () => {
  it('stores a PNG under a fresh uuid and serves it by <uuid> or <uuid>.png', async () => {
    const cache = createImageCache({ dir })
    const id = await cache.put(png(10, 7))
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(cache.urlPath(id)).toBe(`/api/images/cache/${id}.png`)
    expect((await cache.get(id))?.bytes).toEqual(Buffer.from(png(10, 7)))
    expect((await cache.get(`${id}.png`))?.id).toBe(id)
    // atomic writes leave no temp files behind
    expect(await readdir(dir)).toEqual([`${id}.png`])
  })

  it('refuses every name that is not exactly a lower-case uuid', async () => {
    const cache = createImageCache({ dir })
    const id = await cache.put(png(4))
    await writeFile(join(dir, 'secret.png'), 'x')
    for (const name of [
      '../x',
      `../${id}.png`,
      `${id}.png/../${id}`,
      `${id.toUpperCase()}.png`,
      `${id}.jpg`,
      `${id}.png.png`,
      'secret',
      'secret.png',
      '',
      '%2e%2e%2fx',
      `/${id}.png`,
      `${id}\0.png`,
    ]) {
      expect(cacheIdOf(name), name).toBeUndefined()
      expect(await cache.get(name), name).toBeUndefined()
    }
    expect(await cache.get('00000000-0000-4000-8000-000000000000')).toBeUndefined()
  })

  it('evicts the oldest images once the total exceeds maxBytes', async () => {
    const clock = manualClock()
    const cache = createImageCache({ dir, maxBytes: 250, clock })
    const a = await cache.put(png(100))
    clock.advance(1000)
    const b = await cache.put(png(100))
    clock.advance(1000)
    expect(await cache.totalBytes()).toBe(200)
    const c = await cache.put(png(100)) // 300 > 250: the oldest goes
    expect(await cache.get(a)).toBeUndefined()
    expect(await cache.get(b)).toBeDefined()
    expect(await cache.get(c)).toBeDefined()
    expect(await cache.totalBytes()).toBe(200)
    expect((await readdir(dir)).sort()).toEqual([`${b}.png`, `${c}.png`].sort())
  })

  it('keeps the newest image even when it alone is larger than maxBytes', async () => {
    const cache = createImageCache({ dir, maxBytes: 50, clock: manualClock() })
    const old = await cache.put(png(10))
    const big = await cache.put(png(100))
    expect(await cache.get(old)).toBeUndefined()
    expect(await cache.get(big)).toBeDefined()
  })

  it('evicts images older than maxAgeMs', async () => {
    const clock = manualClock()
    const cache = createImageCache({ dir, maxAgeMs: 60_000, clock })
    const a = await cache.put(png(10))
    clock.advance(30_000)
    const b = await cache.put(png(10))
    clock.advance(30_000) // a is now exactly 60 s old
    expect(await cache.get(a)).toBeUndefined()
    expect(await cache.get(b)).toBeDefined()
    clock.advance(30_000)
    expect(await cache.evict()).toEqual([b])
    expect(await readdir(dir)).toEqual([])
  })

  it('rebuilds its index from the directory, so bounds survive a restart', async () => {
    const first = createImageCache({ dir })
    const a = await first.put(png(100))
    const b = await first.put(png(100))
    const again = createImageCache({ dir, maxBytes: 150 })
    expect(await again.totalBytes()).toBe(200)
    const removed = await again.evict()
    expect(removed).toHaveLength(1)
    expect([a, b]).toContain(removed[0])
    expect(await again.totalBytes()).toBe(100)
  })
})
