/**
 * The Hub stand-in (`@svc/testing`) is faithful where svc and the Hub's own JS client meet: this drives
 * it with `@huggingface/hub` itself (search, model info, the paged file tree, download info, downloads,
 * the cache layout's paths-info, whoami) and checks what the library reads. It lives here, not in
 * packages/testing, because @svc/providers is where `@huggingface/hub` is a dependency.
 */
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  downloadFile,
  downloadFileToCacheDir,
  fileDownloadInfo,
  HubApiError,
  listFiles,
  listModels,
  modelInfo,
  whoAmI,
} from '@huggingface/hub'
import { type HubStandIn, hubToken, startHubStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const alice = hubToken('alice')
const bob = hubToken('bob')
const bytes = (n: number, seed: number) => Buffer.alloc(n, seed)
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

describe('the Hub stand-in, driven by @huggingface/hub', () => {
  let hub: HubStandIn
  const weights = bytes(40_000, 7)

  beforeAll(async () => {
    hub = await startHubStandIn({
      tokens: { [alice]: 'alice', [bob]: 'bob' },
      pageSize: 2,
      repos: [
        {
          id: 'Unsloth/Tiny-GGUF',
          downloads: 500,
          files: {
            'README.md': Buffer.from('# tiny\n'),
            'Tiny-Q4_K_M.gguf': weights,
            'Tiny-Q8_0.gguf': bytes(50_000, 8),
            'BF16/Tiny-BF16-00001-of-00002.gguf': bytes(30_000, 9),
            'BF16/Tiny-BF16-00002-of-00002.gguf': bytes(30_000, 10),
            'mmproj-F16.gguf': bytes(20_000, 11),
          },
          corrupt: ['Tiny-Q8_0.gguf'],
        },
        {
          id: 'acme/gated-GGUF',
          gated: 'manual',
          access: ['alice'],
          downloads: 50,
          files: { 'g-Q4_K_M.gguf': weights },
        },
        { id: 'acme/private-GGUF', private: true, access: ['alice'], files: { 'p-Q4_K_M.gguf': weights } },
        { id: 'acme/other-GGUF', downloads: 900, files: { 'o-Q8_0.gguf': weights } },
        {
          id: 'acme/safetensors-only',
          downloads: 9999,
          tags: ['transformers'],
          files: { 'model.safetensors': weights },
        },
      ],
    })
  })
  afterAll(async () => hub?.[Symbol.asyncDispose]())

  it('lists GGUF repos by downloads, following the absolute Link across pages', async () => {
    const seen: string[] = []
    for await (const m of listModels({ hubUrl: hub.url, search: { tags: ['gguf'] }, sort: 'downloads' })) {
      seen.push(m.name)
    }
    expect(seen).toEqual(['acme/other-GGUF', 'Unsloth/Tiny-GGUF', 'acme/gated-GGUF'])
    const withToken: string[] = []
    for await (const m of listModels({ hubUrl: hub.url, accessToken: alice, search: { query: 'private' } })) {
      withToken.push(m.name)
    }
    expect(withToken).toEqual(['acme/private-GGUF'])
    const pages = hub.requests.filter((r) => r.url.startsWith('/api/models?') && r.url.includes('cursor='))
    expect(pages.length).toBeGreaterThan(0)
  })

  it('answers model info with gated, sha and siblings, case-insensitively', async () => {
    const info = await modelInfo({
      hubUrl: hub.url,
      name: 'unsloth/tiny-gguf',
      additionalFields: ['sha', 'filePaths'],
    })
    expect(info).toMatchObject({ name: 'Unsloth/Tiny-GGUF', gated: false, private: false, downloads: 500 })
    expect(info.sha).toBe(hub.sha('Unsloth/Tiny-GGUF'))
    expect(info.filePaths).toContain('BF16/Tiny-BF16-00001-of-00002.gguf')
    const gated = await modelInfo({ hubUrl: hub.url, name: 'acme/gated-GGUF' })
    expect(gated.gated).toBe('manual')
  })

  it('lists the whole tree in small pages, LFS files with their sha256', async () => {
    const files = []
    for await (const f of listFiles({ hubUrl: hub.url, repo: 'Unsloth/Tiny-GGUF', recursive: true }))
      files.push(f)
    expect(files.map((f) => f.path)).toEqual([
      'BF16',
      'BF16/Tiny-BF16-00001-of-00002.gguf',
      'BF16/Tiny-BF16-00002-of-00002.gguf',
      'mmproj-F16.gguf',
      'README.md',
      'Tiny-Q4_K_M.gguf',
      'Tiny-Q8_0.gguf',
    ])
    const q4 = files.find((f) => f.path === 'Tiny-Q4_K_M.gguf')
    expect(q4).toMatchObject({
      type: 'file',
      size: weights.length,
      lfs: { oid: sha256(weights), size: weights.length },
    })
    expect(files.find((f) => f.path === 'README.md')?.lfs).toBeUndefined()
    const top = []
    for await (const f of listFiles({ hubUrl: hub.url, repo: 'Unsloth/Tiny-GGUF' })) top.push(f.path)
    expect(top).not.toContain('BF16/Tiny-BF16-00001-of-00002.gguf')
  })

  it('resolves an LFS file through a 302 to the CDN, where no token ever goes', async () => {
    const info = await fileDownloadInfo({
      hubUrl: hub.url,
      repo: 'acme/gated-GGUF',
      path: 'g-Q4_K_M.gguf',
      accessToken: alice,
    })
    expect(info?.size).toBe(weights.length)
    const res = await downloadFile({
      hubUrl: hub.url,
      repo: 'acme/gated-GGUF',
      path: 'g-Q4_K_M.gguf',
      accessToken: alice,
      xet: false,
    } as Parameters<typeof downloadFile>[0])
    expect(Buffer.from(await res!.arrayBuffer()).equals(weights)).toBe(true)
    const cdn = hub.requests.filter((r) => r.origin === 'cdn')
    expect(cdn.length).toBeGreaterThan(0)
    expect(cdn.every((r) => r.authorization === undefined)).toBe(true)
    const manual = await fetch(`${hub.url}/acme/gated-GGUF/resolve/main/g-Q4_K_M.gguf`, {
      headers: { authorization: `Bearer ${alice}` },
      redirect: 'manual',
    })
    expect(manual.status).toBe(302)
    expect(manual.headers.get('x-linked-etag')).toBe(`"${sha256(weights)}"`)
    expect(manual.headers.get('x-linked-size')).toBe(String(weights.length))
    expect(manual.headers.get('x-repo-commit')).toBe(hub.sha('acme/gated-GGUF'))
    expect(new URL(manual.headers.get('location')!).origin).toBe(hub.cdnUrl)
  })

  it('refuses gated files: 401 without a token, 403 with one not approved, and a private repo is not found', async () => {
    const get = (accessToken?: string) =>
      downloadFile({
        hubUrl: hub.url,
        repo: 'acme/gated-GGUF',
        path: 'g-Q4_K_M.gguf',
        ...(accessToken ? { accessToken } : {}),
      } as Parameters<typeof downloadFile>[0]).then(
        () => undefined,
        (e: unknown) => e,
      )
    const none = await get()
    expect(none).toBeInstanceOf(HubApiError)
    expect((none as HubApiError).statusCode).toBe(401)
    expect((await get(bob)) as HubApiError).toMatchObject({ statusCode: 403 })
    const raw = await fetch(`${hub.url}/acme/gated-GGUF/resolve/main/g-Q4_K_M.gguf`)
    expect(raw.headers.get('x-error-code')).toBe('GatedRepo')
    const hidden = await modelInfo({ hubUrl: hub.url, name: 'acme/private-GGUF', accessToken: bob }).catch(
      (e: unknown) => e,
    )
    expect(hidden).toMatchObject({ statusCode: 404 })
    const anonymous = await fetch(`${hub.url}/api/models/acme/private-GGUF`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('x-error-code')).toBe('RepoNotFound')
    const missing = await fileDownloadInfo({ hubUrl: hub.url, repo: 'Unsloth/Tiny-GGUF', path: 'nope.gguf' })
    expect(missing).toBeNull()
  })

  it('serves a corrupt file whose bytes differ from the sha256 the tree states', async () => {
    const res = await fetch(`${hub.url}/Unsloth/Tiny-GGUF/resolve/main/Tiny-Q8_0.gguf`)
    const body = Buffer.from(await res.arrayBuffer())
    expect(body.length).toBe(50_000)
    expect(sha256(body)).not.toBe(sha256(bytes(50_000, 8)))
  })

  it('fills the cache layout through paths-info, and says who a token belongs to', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'svc-hub-cache-'))
    try {
      const path = await downloadFileToCacheDir({
        hubUrl: hub.url,
        repo: 'Unsloth/Tiny-GGUF',
        path: 'Tiny-Q4_K_M.gguf',
        cacheDir,
        xet: false,
      } as Parameters<typeof downloadFileToCacheDir>[0])
      expect((await readFile(path)).equals(weights)).toBe(true)
      expect(path).toContain(hub.sha('Unsloth/Tiny-GGUF'))
    } finally {
      await rm(cacheDir, { recursive: true, force: true })
    }
    expect(await whoAmI({ hubUrl: hub.url, accessToken: alice })).toMatchObject({
      name: 'alice',
      type: 'user',
    })
  })
})
