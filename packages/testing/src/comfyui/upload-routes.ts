/**
 * `POST /upload/image` and `POST /upload/mask` (ComfyUI's server.py @ a125cd84: `get_dir_by_type`,
 * `compare_image_hash`, `image_upload` at lines 289–367, `upload_mask` at 370–414): multipart `image` (a part with a file
 * name), `type` (`input` default | `temp` | `output`; anything else is Python's UnboundLocalError → 500),
 * `subfolder`, `overwrite` (only `"true"` / `"1"`). A name that exists is kept when the bytes are the
 * same (the answer names it) and otherwise becomes `<stem> (1)<ext>`, `(2)`, …. 400 with an empty body
 * for a missing file part or a path outside its folder; 413 over `--max-upload-size` (100 MB).
 * `/upload/mask` also takes `original_ref` (JSON: filename, subfolder, type — default `output`) and
 * writes the original's RGB with the uploaded mask's alpha; its own refusals are swallowed (200, no
 * file), a missing `original_ref` is a 500 and images of different sizes too, as in ComfyUI.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { extname, join, normalize, relative, resolve, sep } from 'node:path'
import { annotatedPath, type ComfyDirs } from './input-files'
import { decodePng, encodePng } from './png'
import { HttpError, type Reply, type RouteContext } from './route-types'

const MAX_UPLOAD = 104857600
const SERVER_ERROR = '500 Internal Server Error\n\nServer got itself in trouble'

function inside(base: string, path: string): boolean {
  const rel = relative(base, path)
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep)
}

async function readForm(req: IncomingMessage, bytes: Buffer): Promise<FormData> {
  if (bytes.length > MAX_UPLOAD) {
    throw new HttpError(
      413,
      `Maximum request body size ${MAX_UPLOAD} exceeded, actual body size ${bytes.length}`,
    )
  }
  const headers = { 'content-type': String(req.headers['content-type'] ?? '') }
  try {
    return await new Request('http://stand-in/', {
      method: 'POST',
      headers,
      body: new Uint8Array(bytes),
    }).formData()
  } catch {
    throw new HttpError(500, SERVER_ERROR)
  }
}

function typeDir(type: string, dirs: ComfyDirs): string {
  if (type === 'input' || type === 'temp' || type === 'output') return dirs[type]
  throw new HttpError(500, SERVER_ERROR) // UnboundLocalError: type_dir
}

interface Stored {
  name: string
  subfolder: string
  type: string
  path: string
  /** Whether an identical file was already there (nothing written). */
  duplicate: boolean
  bytes: Buffer
}

/** `image_upload`'s shared part: where the file goes and under which name. Writes nothing. */
async function place(form: FormData, dirs: ComfyDirs): Promise<Stored | undefined> {
  const file = form.get('image')
  if (!(file instanceof File) || file.name === '') return undefined
  const type = String(form.get('type') ?? 'input') || 'input'
  const subfolder = String(form.get('subfolder') ?? '')
  const overwrite = ['true', '1'].includes(String(form.get('overwrite') ?? ''))
  const base = typeDir(type, dirs)
  const folder = join(base, normalize(subfolder || '.'))
  const bytes = Buffer.from(await file.arrayBuffer())
  let name = file.name
  let path = resolve(folder, name)
  if (!inside(base, path)) return undefined
  let duplicate = false
  if (!overwrite) {
    const ext = extname(file.name)
    const stem = file.name.slice(0, file.name.length - ext.length)
    const digest = createHash('sha256').update(bytes).digest('hex')
    for (let i = 1; existsSync(path); i++) {
      const existing = createHash('sha256')
        .update(await readFile(path))
        .digest('hex')
      if (existing === digest) {
        duplicate = true
        break
      }
      name = `${stem} (${i})${ext}`
      path = resolve(folder, name)
    }
  }
  await mkdir(folder, { recursive: true })
  return { name, subfolder, type, path, duplicate, bytes }
}

export async function uploadImage(
  req: IncomingMessage,
  _url: URL,
  _body: string,
  ctx: RouteContext,
  raw: Buffer,
): Promise<Reply> {
  const stored = await place(await readForm(req, raw), ctx.dirs)
  if (!stored) return { status: 400 }
  if (!stored.duplicate) await writeFile(stored.path, stored.bytes)
  ctx.uploads.push({
    route: '/upload/image',
    name: stored.name,
    subfolder: stored.subfolder,
    type: stored.type,
  })
  return { status: 200, json: { name: stored.name, subfolder: stored.subfolder, type: stored.type } }
}

export async function uploadMask(
  req: IncomingMessage,
  _url: URL,
  _body: string,
  ctx: RouteContext,
  raw: Buffer,
): Promise<Reply> {
  const form = await readForm(req, raw)
  const stored = await place(form, ctx.dirs)
  if (!stored) return { status: 400 }
  const refText = form.get('original_ref')
  let ref: { filename?: unknown; subfolder?: unknown; type?: unknown }
  try {
    ref = JSON.parse(String(refText ?? 'null')) ?? undefined
    if (typeof ref !== 'object') throw new Error('original_ref')
  } catch {
    throw new HttpError(500, SERVER_ERROR) // json.loads(None) / a non-dict
  }
  if (!stored.duplicate) await mergeMask(ref, stored, ctx.dirs)
  ctx.uploads.push({
    route: '/upload/mask',
    name: stored.name,
    subfolder: stored.subfolder,
    type: stored.type,
  })
  return { status: 200, json: { name: stored.name, subfolder: stored.subfolder, type: stored.type } }
}

/** `image_save_function`: the original's RGB with the mask's alpha; its refusals are discarded. */
async function mergeMask(
  ref: { filename?: unknown; subfolder?: unknown; type?: unknown },
  stored: Stored,
  dirs: ComfyDirs,
): Promise<void> {
  const filename = String(ref.filename ?? '')
  if (filename === '' || filename.startsWith('/') || filename.includes('..')) return
  const tagged = / \[(input|output|temp)\]$/.test(filename)
  const type = String(ref.type ?? 'output')
  if (!tagged && !['input', 'output', 'temp'].includes(type)) return
  const name = tagged ? filename : `${filename} [${type}]`
  const sub = String(ref.subfolder ?? '')
  const path = annotatedPath(sub ? `${sub}/${name}` : name, dirs)
  if (!path || !existsSync(path)) return
  let original: ReturnType<typeof decodePng>
  let mask: ReturnType<typeof decodePng>
  try {
    original = decodePng(await readFile(path))
    mask = decodePng(stored.bytes)
  } catch {
    throw new HttpError(500, SERVER_ERROR)
  }
  if (original.width !== mask.width || original.height !== mask.height) {
    throw new HttpError(500, SERVER_ERROR) // PIL putalpha: images do not match
  }
  const { width, height } = original
  const stride = 1 + width * 4
  const scanlines = new Uint8Array(stride * height)
  for (let p = 0; p < width * height; p++) {
    const at = Math.floor(p / width) * stride + 1 + (p % width) * 4
    scanlines.set(original.rgba.subarray(p * 4, p * 4 + 3), at)
    scanlines[at + 3] = mask.rgba[p * 4 + 3]!
  }
  await writeFile(stored.path, encodePng({ width, height, scanlines, channels: 4 }))
}
