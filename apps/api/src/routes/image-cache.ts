import { SvcError } from '@svc/core'
import type { ImageCache } from '@svc/providers'
import { Hono } from 'hono'

/**
 * `GET /api/images/cache/<uuid>.png` → the PNG a `/v1/images/generations` call stored. Only a strict
 * lower-case UUID followed by `.png` is looked up (the cache validates it again), so no path of any
 * shape reaches the file system; anything else is 404. Cached for a day by clients: the id never
 * names other bytes.
 */
export function imageCacheRoutes(deps: { imageCache: ImageCache }) {
  return new Hono().get('/:name', async (c) => {
    const image = await deps.imageCache.get(c.req.param('name'))
    if (!image)
      throw new SvcError('route.not_found', 'no such image (it may have been evicted from the cache)')
    return c.body(new Uint8Array(image.bytes), 200, {
      'content-type': 'image/png',
      'cache-control': 'private, max-age=86400, immutable',
    })
  })
}
