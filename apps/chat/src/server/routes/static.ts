import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'

/**
 * What the page may load: only this server (scripts, styles, fetches), images and audio also from
 * `blob:`/`data:` (attachments, generated images, read-aloud). Rendered markdown is sanitised; this
 * is the second line of defence. Inline styles are allowed (component `style` attributes).
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The Vite build. `index.html` is never cached (a new build is picked up on reload); hashed files
 * under `assets/` are cached for a year, served gzip/brotli-precompressed when the build made those.
 * Every URL in the build is relative (`./assets/…`) and routes live in the hash (`#/c/<id>`), so one
 * build works at `/` and under any prefix the proxy strips (`/chat/`). Without a build, `/` says how
 * to make one.
 */
export function staticRoutes(staticDir: string | undefined) {
  const app = new Hono()
  if (!staticDir || !existsSync(join(staticDir, 'index.html'))) {
    return app.get('/', (c) =>
      c.html(
        '<!doctype html><meta charset="utf-8"><title>svc chat</title><p>The chat front end is not built. Run <code>pnpm build</code> (setup does it) and reload.</p>',
        503,
      ),
    )
  }
  const page = serveStatic({
    root: staticDir,
    path: 'index.html',
    onFound: (_path, c) => {
      c.header('cache-control', 'no-cache')
      c.header('content-security-policy', CSP)
      c.header('x-content-type-options', 'nosniff')
      c.header('referrer-policy', 'no-referrer')
    },
  })
  return app
    .get('/', page)
    .get('/index.html', page)
    .get(
      '/assets/*',
      serveStatic({
        root: staticDir,
        precompressed: true,
        onFound: (_path, c) => {
          c.header('cache-control', 'public, max-age=31536000, immutable')
          c.header('x-content-type-options', 'nosniff')
        },
      }),
    )
    .get('/:file{[\\w.-]+\\.(?:svg|png|ico|webmanifest)}', serveStatic({ root: staticDir }))
}
