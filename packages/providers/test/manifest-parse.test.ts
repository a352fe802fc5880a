import { readFile } from 'node:fs/promises'
import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { isLoopbackRegistry, parseRepository } from '../src/manifest/image-ref'
import { defaultImagesManifestPath, parseImageManifest } from '../src/manifest/manifest'
import { setDigests } from '../src/manifest/pin'
import { parseChallenge } from '../src/manifest/registry-client'

const D1 = `sha256:${'a'.repeat(64)}`
const D2 = `sha256:${'b'.repeat(64)}`

const SAMPLE = `# top comment
[image.one]   # trailing comment on the header
provider = "llm"
backend = "vulkan"
repository = "docker.io/kyuz0/amd-strix-halo-toolboxes"
tag = "vulkan-radv"
digest = ""    # pinned by svc manifest pin

# between tables
[image.two]
provider = "image"
repository = "localhost/svc-flm"
tag = "v1"
source = "local"
digest = "${D1}"
`

describe('images manifest', () => {
  it('parses the shipped manifests/images.toml and refuses every entry until it is pinned', async () => {
    const text = await readFile(defaultImagesManifestPath(), 'utf8')
    const parsed = parseImageManifest(text)
    if (!parsed.ok) throw new Error(parsed.error)
    const names = Object.keys(parsed.manifest.entries)
    expect(names).toEqual(
      expect.arrayContaining([
        'llama-vulkan-radv',
        'llama-rocm',
        'whisper-cpu',
        'kokoro-cpu',
        'comfyui-rocm',
        'flm-npu',
        'open-webui',
      ]),
    )
    expect(parsed.manifest.entries['comfyui-rocm']?.tag).toBe('v1')
    expect(parsed.manifest.entries['flm-npu']).toMatchObject({ tag: 'v1', source: 'local' })
    for (const name of names) {
      expect(parsed.manifest.entries[name]?.digest).toBe('') // never invented: nothing reachable from here
      expect(() => parsed.manifest.reference(name)).toThrow(SvcError)
    }
  })

  it('refuses an entry without a digest with backend.unavailable naming the entry and svc manifest pin', () => {
    const parsed = parseImageManifest(SAMPLE, 'images.toml')
    if (!parsed.ok) throw new Error(parsed.error)
    let error: unknown
    try {
      parsed.manifest.reference('one')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({ code: 'backend.unavailable', status: 409 })
    expect((error as Error).message).toContain('image "one"')
    expect((error as Error).message).toContain('svc manifest pin one')
  })

  it('runs registry images as repository@digest and local builds by image id', () => {
    const parsed = parseImageManifest(SAMPLE.replace('digest = ""', `digest = "${D2}"`))
    if (!parsed.ok) throw new Error(parsed.error)
    expect(parsed.manifest.reference('one')).toBe(`docker.io/kyuz0/amd-strix-halo-toolboxes@${D2}`)
    expect(parsed.manifest.reference('two')).toBe(D1)
    expect(() => parsed.manifest.reference('three')).toThrow(/no image entry "three"/)
  })

  it('reports the file, the entry and the field of a bad value', () => {
    const parsed = parseImageManifest(SAMPLE.replace('digest = ""', 'digest = "sha256:xyz"'), 'm.toml')
    expect(parsed).toEqual({
      ok: false,
      error: expect.stringMatching(/^m\.toml: \[image\.one\] field "digest"/),
    })
    const unknown = parseImageManifest(SAMPLE.replace('tag = "v1"', 'tag = "v1"\ncolour = "red"'), 'm.toml')
    expect(unknown.ok).toBe(false)
    expect(!unknown.ok && unknown.error).toContain('[image.two]')
    expect(parseImageManifest('[image.x', 'm.toml')).toMatchObject({ ok: false })
  })
})

describe('setDigests', () => {
  it('replaces digest values in place and keeps every comment and blank line', () => {
    const { text, missing } = setDigests(SAMPLE, { one: D2, two: D2 })
    expect(missing).toEqual([])
    expect(text).toBe(
      SAMPLE.replace('digest = ""    # pinned', `digest = "${D2}"    # pinned`).replace(
        `digest = "${D1}"`,
        `digest = "${D2}"`,
      ),
    )
  })

  it('adds a digest line after the tag when a table has none, and keeps CRLF files CRLF', () => {
    const crlf = '[image.a]\r\nrepository = "x/y"\r\ntag = "t"\r\ndescription = "d"\r\n'
    const { text } = setDigests(crlf, { a: D1 })
    expect(text).toBe(
      `[image.a]\r\nrepository = "x/y"\r\ntag = "t"\r\ndigest = "${D1}"\r\ndescription = "d"\r\n`,
    )
  })

  it('names the entries whose table it cannot find', () => {
    expect(setDigests(SAMPLE, { nope: D1 }).missing).toEqual(['nope'])
  })
})

describe('image references', () => {
  it.each([
    [
      'docker.io/kyuz0/amd-strix-halo-toolboxes',
      'https://registry-1.docker.io',
      'kyuz0/amd-strix-halo-toolboxes',
    ],
    ['ubuntu', 'https://registry-1.docker.io', 'library/ubuntu'],
    ['kyuz0/x', 'https://registry-1.docker.io', 'kyuz0/x'],
    ['ghcr.io/ggml-org/whisper.cpp', 'https://ghcr.io', 'ggml-org/whisper.cpp'],
    ['localhost:5000/a/b', 'http://localhost:5000', 'a/b'],
    ['127.0.0.1:41234/svc-test/llama', 'http://127.0.0.1:41234', 'svc-test/llama'],
    ['localhost/svc-flm', 'http://localhost', 'svc-flm'],
  ])('%s → %s /v2/%s', (repository, registry, name) => {
    const r = parseRepository(repository)
    expect(r.registry.origin).toBe(registry)
    expect(r.name).toBe(name)
  })

  it('treats only loopback registries as plain http', () => {
    expect(isLoopbackRegistry('127.0.0.1:5000')).toBe(true)
    expect(isLoopbackRegistry('[::1]:5000')).toBe(true)
    expect(isLoopbackRegistry('registry.local:5000')).toBe(false)
  })

  it('parses Bearer challenges with quoted commas', () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull,push"',
      ),
    ).toEqual({
      scheme: 'bearer',
      params: {
        realm: 'https://auth.docker.io/token',
        service: 'registry.docker.io',
        scope: 'repository:a/b:pull,push',
      },
    })
  })
})
