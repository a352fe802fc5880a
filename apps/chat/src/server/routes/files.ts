import { bodySizeLimit, SvcError } from '@svc/core'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { ChatDeps } from '../deps'
import { MAX_UPLOAD_BYTES } from '../http/limits'
import { ID_PATTERN } from '../store/ids'

export { MAX_UPLOAD_BYTES }

/**
 * Stored files of the signed-in person:
 * - `POST api/files` with an image as the raw body → 201 `{file: {id, mime, size}}`; the type is read
 *   from the bytes (PNG, JPEG, GIF, WebP), not from the header, so nothing else is ever stored. At
 *   most `MAX_UPLOAD_BYTES` each (413 `request.too_large`), and within the person's storage quota
 *   (413 `storage.quota_exceeded`).
 * - `GET api/files/:id` → the bytes, only for their owner (404 for anyone else).
 */
export function fileRoutes(deps: ChatDeps) {
  return new Hono()
    .post(
      '/',
      bodyLimit(bodySizeLimit(MAX_UPLOAD_BYTES, `an attachment may be at most ${MAX_UPLOAD_BYTES >> 20} MB`)),
      async (c) => {
        const bytes = new Uint8Array(await c.req.arrayBuffer())
        const mime = sniffImage(bytes)
        if (!mime) {
          throw new SvcError('request.invalid', 'only PNG, JPEG, GIF and WebP images can be attached', {
            param: 'file',
          })
        }
        const id = await deps.files.save(c.get('user').id, bytes, mime, 'file')
        return c.json({ file: { id, mime, size: bytes.byteLength } }, 201)
      },
    )
    .get('/:id', async (c) => {
      const id = c.req.param('id')
      const found = ID_PATTERN.test(id) ? deps.store.files.get(c.get('user').id, id) : undefined
      if (!found) throw new SvcError('file.not_found', `no file ${id}`)
      const bytes = await deps.files.read(id).catch(() => undefined)
      if (!bytes) throw new SvcError('file.not_found', `the file ${id} is gone`)
      return c.body(new Uint8Array(bytes), 200, {
        'content-type': found.mime,
        'cache-control': 'private, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      })
    })
}

/** The image type the bytes actually are, by their magic numbers; undefined for anything else. */
export function sniffImage(b: Uint8Array): string | undefined {
  const starts = (...sig: number[]) => sig.every((x, i) => b[i] === x)
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50)
    return 'image/webp'
  return undefined
}
