/** The dashboard build served by the API: caching, compression, client-route fallback, features. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadDashboardFiles } from '../src/dashboard/dashboard-files'
import { testApp } from './helpers'

let dist: string
const INDEX = '<!doctype html><title>svc</title><script type="module" src="/assets/index-AbC123.js"></script>'
const JS = `console.log(${JSON.stringify('x'.repeat(4000))})`

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'svc-dist-'))
  await mkdir(join(dist, 'assets'))
  await writeFile(join(dist, 'index.html'), INDEX)
  await writeFile(join(dist, 'assets', 'index-AbC123.js'), JS)
  await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
})
afterAll(() => rm(dist, { recursive: true, force: true }))

describe('serving the dashboard build', () => {
  const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

  it('serves index.html at / uncached, hashed assets immutable and gzipped', async () => {
    const { app } = await testApp({ dashboard: loadDashboardFiles(dist)! })
    const index = await app.request('/', { headers: html })
    expect(index.status).toBe(200)
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(index.headers.get('cache-control')).toBe('no-cache')
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(await index.text()).toBe(INDEX)

    const js = await app.request('/assets/index-AbC123.js', { headers: { 'accept-encoding': 'gzip, br' } })
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(js.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await js.arrayBuffer())).toString()).toBe(JS)

    const again = await app.request('/favicon.svg', {
      headers: { 'if-none-match': index.headers.get('etag')! },
    })
    expect(again.status).toBe(200)
    const etag = again.headers.get('etag')!
    expect((await app.request('/favicon.svg', { headers: { 'if-none-match': etag } })).status).toBe(304)
  })

  it('answers client routes with index.html, but only GETs that accept HTML outside /api and /v1', async () => {
    const { app } = await testApp({ dashboard: loadDashboardFiles(dist)! })
    expect(await (await app.request('/settings/tokens', { headers: html })).text()).toBe(INDEX)
    for (const [path, init] of [
      ['/settings', { headers: { accept: 'application/json' } }],
      ['/api/nope', { headers: html }],
      ['/v1/nope', { headers: html }],
      ['/assets/missing-123.js', { headers: html }],
    ] as const) {
      const r = await app.request(path, init)
      expect(r.status, path).toBe(404)
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('route.not_found')
    }
    const post = await app.request('/settings', { method: 'POST', headers: html })
    expect(post.status).toBe(404)
  })
})

describe('/api/features', () => {
  it('says dashboard: true only when a build is there', async () => {
    await using withBuild = await startApi({ env: { SVC_DASHBOARD_DIR: dist } })
    const on = (await (await fetch(`${withBuild.url}/api/features`)).json()) as {
      features: { dashboard: boolean }
    }
    expect(on.features.dashboard).toBe(true)
    expect((await fetch(`${withBuild.url}/`, { headers: { accept: 'text/html' } })).status).toBe(200)

    await using without = await startApi({ env: { SVC_DASHBOARD_DIR: join(dist, 'nothing-here') } })
    const off = (await (await fetch(`${without.url}/api/features`)).json()) as {
      features: { dashboard: boolean }
    }
    expect(off.features.dashboard).toBe(false)
    expect((await fetch(`${without.url}/`, { headers: { accept: 'text/html' } })).status).toBe(404)
  }, 60_000)
})
