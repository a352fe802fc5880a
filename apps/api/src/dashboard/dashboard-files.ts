/**
 * The dashboard's build (`apps/dashboard/dist`), served by the API at `/`. Read into memory once at
 * start (a few hundred KB), with a gzip copy of every text file, so a request costs a Map lookup.
 * Nothing of Vite runs here: only the files `pnpm build` wrote.
 *
 * - Hashed assets (`/assets/*`): `Cache-Control: public, max-age=31536000, immutable`.
 * - Everything else (`index.html`, icons): `no-cache` (revalidated with the ETag).
 * - Client routes (`/models`, `/settings`, …): a GET or HEAD whose path is outside `/api` and `/v1`,
 *   matches no file, and accepts HTML gets `index.html`. Anything else is the API's JSON 404.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/** Where `pnpm build` puts the dashboard, seen from this file. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
}
/**
 * The page's Content-Security-Policy: scripts and styles only from svc itself (model output is
 * rendered as sanitised markdown; this is the second wall), images and audio also from data:/blob:
 * URLs (generated images and speech), no framing by other sites.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.webmanifest'])

interface StaticFile {
  body: Uint8Array
  gzip: Uint8Array | undefined
  type: string
  etag: string
  immutable: boolean
}

export interface DashboardFiles {
  /** The response for a request, or undefined when the dashboard has nothing to say (JSON 404). */
  respond(request: {
    method: string
    path: string
    header(name: string): string | undefined
  }): Response | undefined
}

/** Loads a build; undefined when `dir` holds no `index.html` (then `/api/features` says `dashboard: false`). */
export function loadDashboardFiles(dir: string = DEFAULT_DASHBOARD_DIR): DashboardFiles | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined
  const files = new Map<string, StaticFile>()
  for (const full of walk(dir)) {
    const url = `/${relative(dir, full).split(sep).join('/')}`
    const ext = extname(full).toLowerCase()
    const body = readFileSync(full)
    const gzip = COMPRESSIBLE.has(ext) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined
    files.set(url, {
      body,
      gzip,
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: url.startsWith('/assets/'),
    })
  }
  const index = files.get('/index.html')!
  return {
    respond(req) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return undefined
      const path = req.path
      if (/^\/(api|v1)(\/|$)/.test(path)) return undefined
      let file = files.get(path === '/' ? '/index.html' : path)
      if (!file && /text\/html/.test(req.header('accept') ?? '') && !path.startsWith('/assets/')) file = index
      if (!file) return undefined
      const headers: Record<string, string> = {
        'content-type': file.type,
        'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        etag: file.etag,
        vary: 'Accept-Encoding',
        'x-content-type-options': 'nosniff',
      }
      if (file.type.startsWith('text/html')) {
        headers['referrer-policy'] = 'same-origin'
        headers['content-security-policy'] = DASHBOARD_CSP
      }
      if (req.header('if-none-match') === file.etag) return new Response(null, { status: 304, headers })
      const gzip = file.gzip && /\bgzip\b/.test(req.header('accept-encoding') ?? '')
      if (gzip) headers['content-encoding'] = 'gzip'
      const body = gzip ? file.gzip! : file.body
      headers['content-length'] = String(body.length)
      return new Response(req.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
        status: 200,
        headers,
      })
    },
  }
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry)
    if (statSync(full).isDirectory()) yield* walk(full)
    else yield full
  }
}
