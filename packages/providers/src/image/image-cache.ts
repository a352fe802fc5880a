/**
 * The image cache: generated PNGs under `<dir>/<uuid>.png`, served as `/api/images/cache/<uuid>.png`
 * (docs/operations.md, "Files"), bounded in total size and in age.
 *
 * - Writes are atomic (`writeFileAtomic`: temp file + rename), so a reader never sees half a PNG.
 * - Names are checked strictly: a lower-case RFC 4122 v4 uuid, optionally with `.png` — nothing else
 *   ever becomes a path, so `../x`, `%2e%2e`, absolute paths or other files in `dir` are unreachable.
 * - Eviction: files older than `maxAgeMs` go; then, while the total exceeds `maxBytes`, the oldest go
 *   (the newest file is kept even if it alone is larger). It runs after every `put` and on `evict()`;
 *   `get` of an expired image answers `undefined` (and removes it).
 * - The index lives in memory and is built from the directory on first use (age = file mtime), so a
 *   restart keeps the cache and its bounds.
 */
import { randomUUID } from 'node:crypto'
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Clock } from '@svc/core'
import { writeFileAtomic } from '@svc/core/node'

const UUID = /^([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})(\.png)?$/

export interface ImageCacheOptions {
  dir: string
  /** Total bytes kept. Default 1 GiB. */
  maxBytes?: number
  /** Age after which an image is deleted (ms). Default 24 h. */
  maxAgeMs?: number
  /** Wall-clock time (ms since the epoch, like `Date.now`); injected by tests. */
  clock?: Pick<Clock, 'now'>
}

export interface CachedImage {
  id: string
  bytes: Buffer
  /** When it was stored (clock ms). */
  createdAt: number
}

export interface ImageCache {
  readonly dir: string
  /** Stores PNG bytes under a fresh uuid, then evicts. Resolves with the id. */
  put(png: Uint8Array): Promise<string>
  /** `<uuid>` or `<uuid>.png` → the image; `undefined` for a bad name, a missing or an expired image. */
  get(name: string): Promise<CachedImage | undefined>
  /** The URL path clients get: `/api/images/cache/<id>.png`. */
  urlPath(id: string): string
  /** Deletes expired and over-budget images; resolves with the ids removed (oldest first). */
  evict(): Promise<string[]>
  /** Bytes currently held. */
  totalBytes(): Promise<number>
}

/** The uuid of a cache name, or undefined when `name` is anything but `<uuid>[.png]`. */
export function cacheIdOf(name: string): string | undefined {
  return UUID.exec(name)?.[1]
}

export function createImageCache(options: ImageCacheOptions): ImageCache {
  const { dir } = options
  const maxBytes = options.maxBytes ?? 1024 ** 3
  const maxAgeMs = options.maxAgeMs ?? 24 * 3600_000
  const clock = options.clock ?? { now: () => Date.now() }
  const path = (id: string) => join(dir, `${id}.png`)
  let index: Promise<Map<string, { size: number; createdAt: number }>> | undefined

  const load = () => {
    index ??= (async () => {
      const map = new Map<string, { size: number; createdAt: number }>()
      const names = await readdir(dir).catch(() => [] as string[])
      for (const name of names) {
        const id = name.endsWith('.png') ? cacheIdOf(name) : undefined
        if (!id) continue
        const info = await stat(join(dir, name)).catch(() => undefined)
        if (info?.isFile()) map.set(id, { size: info.size, createdAt: info.mtimeMs })
      }
      return map
    })()
    return index
  }

  async function remove(map: Map<string, unknown>, id: string): Promise<void> {
    map.delete(id)
    await rm(path(id), { force: true })
  }

  async function evict(): Promise<string[]> {
    const map = await load()
    const removed: string[] = []
    const byAge = [...map].sort((a, b) => a[1].createdAt - b[1].createdAt)
    const cutoff = clock.now() - maxAgeMs
    let total = 0
    for (const [, e] of byAge) total += e.size
    for (const [i, [id, e]] of byAge.entries()) {
      const last = i === byAge.length - 1
      if (e.createdAt <= cutoff || (total > maxBytes && !last)) {
        await remove(map, id)
        removed.push(id)
        total -= e.size
      }
    }
    return removed
  }

  return {
    dir,
    async put(png) {
      const map = await load()
      const id = randomUUID()
      await writeFileAtomic(path(id), png)
      map.set(id, { size: png.byteLength, createdAt: clock.now() })
      await evict()
      return id
    },
    async get(name) {
      const id = cacheIdOf(name)
      if (!id) return undefined
      const map = await load()
      const entry = map.get(id)
      if (entry && entry.createdAt <= clock.now() - maxAgeMs) {
        await remove(map, id)
        return undefined
      }
      const bytes = await readFile(path(id)).catch(() => undefined)
      if (!bytes) {
        map.delete(id)
        return undefined
      }
      // written after the index was built (by another process): bound it from now on
      const known = entry ?? { size: bytes.length, createdAt: clock.now() }
      map.set(id, known)
      return { id, bytes, createdAt: known.createdAt }
    },
    urlPath: (id) => `/api/images/cache/${id}.png`,
    evict,
    async totalBytes() {
      let total = 0
      for (const e of (await load()).values()) total += e.size
      return total
    },
  }
}
