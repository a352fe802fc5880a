/**
 * `GET /view` (server.py `view_image`): `filename` (with an optional `[output]` /
 * `[input]` / `[temp]` suffix), `type`, `subfolder`; 404 when absent or not found, 400 for an empty,
 * absolute or `..` name or an unknown type, 403 for a subfolder outside the base directory.
 */
import { readFile, stat } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { basename, relative, resolve } from 'node:path'
import type { Reply, RouteContext } from './route-types'

export async function view(
  _req: IncomingMessage,
  url: URL,
  _body: string,
  ctx: RouteContext,
): Promise<Reply> {
  const q = url.searchParams
  let filename = q.get('filename')
  if (filename === null) return { status: 404 }
  let dir: string | undefined
  for (const [tag, d] of [
    ['[output]', ctx.dirs.output],
    ['[input]', ctx.dirs.input],
    ['[temp]', ctx.dirs.temp],
  ] as const) {
    if (filename.endsWith(tag)) {
      filename = filename.slice(0, -tag.length).trimEnd()
      dir = d
    }
  }
  if (!filename || filename.startsWith('/') || filename.includes('..')) return { status: 400 }
  if (dir === undefined) {
    const type = q.get('type') ?? 'output'
    dir =
      type === 'output'
        ? ctx.dirs.output
        : type === 'input'
          ? ctx.dirs.input
          : type === 'temp'
            ? ctx.dirs.temp
            : undefined
    if (dir === undefined) return { status: 400 }
  }
  const subfolder = q.get('subfolder')
  if (subfolder !== null) {
    const full = resolve(dir, subfolder)
    const rel = relative(dir, full)
    if (rel.startsWith('..') || resolve(dir, rel) !== full) return { status: 403 }
    dir = full
  }
  const file = resolve(dir, basename(filename))
  const info = await stat(file).catch(() => undefined)
  if (!info?.isFile()) return { status: 404 }
  const name = basename(filename)
  // `preview` (webp/jpeg re-encoding) and `channel` are not emulated: the PNG is served as stored.
  return {
    status: 200,
    bytes: await readFile(file),
    headers: {
      'content-type': name.endsWith('.png') ? 'image/png' : 'application/octet-stream',
      'content-disposition': `filename="${name}"`,
    },
  }
}
