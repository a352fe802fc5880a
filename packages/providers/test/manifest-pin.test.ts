import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type LocalRegistry, pushTestImage, startRegistry, startTokenAuthFront } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseImageManifest } from '../src/manifest/manifest'
import { pinManifest } from '../src/manifest/pin'
import { MANIFEST_MEDIA_TYPES, resolveDigest } from '../src/manifest/registry-client'

const started = await startRegistry()
const skip = 'skip' in started

describe.skipIf(skip)('svc manifest pin against a real registry', () => {
  const registry = started as LocalRegistry
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-pin-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
    await registry.stop()
  })

  it('resolves a tag holding one manifest to the registry digest', async () => {
    const pushed = await pushTestImage(registry.url, 'svc-test/single', 'v1')
    const r = await resolveDigest(`${registry.host}/svc-test/single`, 'v1')
    expect(r).toEqual({ digest: pushed.digest, mediaType: MANIFEST_MEDIA_TYPES[2] })
  })

  it('pins a multi-platform tag to its index digest, not a platform manifest', async () => {
    const pushed = await pushTestImage(registry.url, 'svc-test/multi', 'v1', { index: true })
    const r = await resolveDigest(`${registry.host}/svc-test/multi`, 'v1')
    expect(r.digest).toBe(pushed.digest)
    expect(r.digest).not.toBe(pushed.manifestDigest)
    expect(r.mediaType).toBe(MANIFEST_MEDIA_TYPES[0])
  })

  it('follows a Bearer challenge to the token service and retries with the token', async () => {
    const pushed = await pushTestImage(registry.url, 'svc-test/private', 'v2')
    await using front = await startTokenAuthFront(registry.url)
    const r = await resolveDigest(`${front.host}/svc-test/private`, 'v2')
    expect(r.digest).toBe(pushed.digest)
    expect(front.issued).toEqual([{ scope: 'repository:svc-test/private:pull', service: 'svc-test' }])
  })

  it('hashes the manifest body when the registry sends no Docker-Content-Digest', async () => {
    const pushed = await pushTestImage(registry.url, 'svc-test/nohdr', 'v1', { index: true })
    await using front = await startTokenAuthFront(registry.url, { omitDigestHeader: true })
    expect((await resolveDigest(`${front.host}/svc-test/nohdr`, 'v1')).digest).toBe(pushed.digest)
  })

  it('says which tag is missing', async () => {
    await expect(resolveDigest(`${registry.host}/svc-test/single`, 'nope')).rejects.toThrow(
      /manifests\/nope: no such tag or repository/,
    )
  })

  it('rewrites only the digest lines, keeps comments, and leaves unresolvable entries unchanged', async () => {
    const a = await pushTestImage(registry.url, 'svc-test/a', 'v1')
    const b = await pushTestImage(registry.url, 'svc-test/b', 'v1', { index: true })
    const file = join(dir, 'images.toml')
    const original = `# Pinned images.\n\n[image.a] # first\nprovider = "llm"\nrepository = "${registry.host}/svc-test/a"\ntag = "v1"\ndigest = ""   # keep me\n\n# the second one\n[image.b]\nprovider = "stt"\nrepository = "${registry.host}/svc-test/b"\ntag = "v1"\n\n[image.gone]\nprovider = "tts"\nrepository = "${registry.host}/svc-test/gone"\ntag = "v1"\ndigest = ""\n`
    await writeFile(file, original)

    const report = await pinManifest({ file })
    expect(report.written).toBe(true)
    const byName = Object.fromEntries(report.results.map((r) => [r.name, r]))
    expect(byName.a).toMatchObject({ ok: true, changed: true, digest: a.digest })
    expect(byName.b).toMatchObject({ ok: true, changed: true, digest: b.digest })
    expect(byName.gone).toMatchObject({ ok: false, changed: false, digest: '' })
    expect(byName.gone?.error).toContain('no such tag or repository')

    const text = await readFile(file, 'utf8')
    expect(text).toBe(
      original
        .replace('digest = ""   # keep me', `digest = "${a.digest}"   # keep me`)
        .replace(`svc-test/b"\ntag = "v1"\n`, `svc-test/b"\ntag = "v1"\ndigest = "${b.digest}"\n`),
    )
    const parsed = parseImageManifest(text)
    expect(parsed.ok && parsed.manifest.reference('a')).toBe(`${registry.host}/svc-test/a@${a.digest}`)

    const again = await pinManifest({ file, names: ['a'] })
    expect(again).toEqual({
      written: false,
      results: [{ name: 'a', ok: true, changed: false, digest: a.digest }],
    })
  })

  it('reports a requested entry that does not exist', async () => {
    const file = join(dir, 'one.toml')
    await writeFile(file, '[image.x]\nprovider = "llm"\nrepository = "x/y"\ntag = "t"\ndigest = ""\n')
    const report = await pinManifest({ file, names: ['nope'] })
    expect(report.results).toEqual([
      { name: 'nope', ok: false, changed: false, digest: '', error: `no entry "nope" in ${file}` },
    ])
  })
})
