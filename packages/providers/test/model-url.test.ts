/**
 * Models pulled from URLs. File names from the URL are made safe (no escape from
 * the models directory), bad `%` escapes are a 400, redirects are bounded and kept to http(s), and a
 * `sha256` given with the URL is enforced. Against a real HTTP server.
 */
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fillerGguf, serveFiles } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { downloadFile } from '../src/models/download'
import { ModelStore } from '../src/models/model-store'
import { fileNameFromUrl, parseModelUrl } from '../src/models/model-url'

const body = fillerGguf(50_000) // a GGUF of random bytes: the store checks a download's header
const sha = createHash('sha256').update(body).digest('hex')
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A state dir two levels below a scratch dir of its own, so an escape would land in that scratch dir. */
async function open() {
  const scratch = await mkdtemp(join(tmpdir(), 'svc-url-'))
  dirs.push(scratch)
  const stateDir = join(scratch, 'a', 'state')
  await mkdir(stateDir, { recursive: true })
  return { scratch, stateDir, store: await ModelStore.open({ stateDir, catalogue: [] }) }
}

const pull = (store: ModelStore, entry: Parameters<ModelStore['pull']>[0]) =>
  store.pull(entry, () => {}, AbortSignal.timeout(10_000))

async function exists(path: string) {
  return (await stat(path).catch(() => undefined)) !== undefined
}

describe('file names from model URLs', () => {
  it('keeps a pulled file inside its model directory whatever the URL path says', async () => {
    const path = '/m/..%2F..%2F..%2Fescaped.gguf'
    await using files = await serveFiles({ [path]: body, '/m/..%5C..%5Cwin.gguf': body })
    const { scratch, stateDir, store } = await open()
    for (const p of [path, '/m/..%5C..%5Cwin.gguf']) {
      const entry = await store.resolve(`${files.url}${p}`)
      const pulled = await pull(store, entry)
      expect(dirname(pulled.path!)).toBe(join(stateDir, 'models', entry.id))
    }
    // Where a plain decode of the first name would have put it: <state>/models/escaped/../../../
    expect(await exists(join(scratch, 'a', 'escaped.gguf'))).toBe(false)
    expect(await readdir(join(scratch, 'a'))).toEqual(['state'])
  })

  it('refuses to place an edited registry entry outside the state directory, and still lists the rest', async () => {
    const { scratch, stateDir } = await open()
    await mkdir(join(stateDir, 'models'), { recursive: true })
    const evil = {
      id: '../../../evil',
      format: 'gguf',
      provider: 'llm',
      source: 'pulled',
      url: 'http://h/x.gguf',
    }
    await writeFile(join(stateDir, 'models', 'registry.json'), JSON.stringify({ models: [evil] }))
    const store = await ModelStore.open({ stateDir, catalogue: [] })
    expect((await store.list()).map((m) => m.id)).toEqual(['../../../evil'])
    await expect(pull(store, evil as Parameters<ModelStore['pull']>[0])).rejects.toMatchObject({
      status: 400,
    })
    expect(await readdir(scratch)).toEqual(['a'])
  })

  it('makes names safe and single: no separators, control characters or leading dots, bounded length', () => {
    const name = (path: string) => fileNameFromUrl(new URL(`http://h${path}`))
    expect(name('/x/Qwen3-0.6B-Q8_0.gguf')).toBe('Qwen3-0.6B-Q8_0.gguf')
    expect(name('/x/Other%20Model.gguf')).toBe('Other Model.gguf')
    expect(name('/x/..%2F..%2Fetc%2Fpasswd')).toBe('_.._etc_passwd')
    expect(name('/x/a%00b%0A.gguf')).toBe('a_b_.gguf')
    expect(name('/x/..')).toBeUndefined()
    expect(name('/x/')).toBeUndefined()
    expect(name('/x/bad%zz.gguf')).toBe('bad%zz.gguf')
    const long = name(`/x/${'a'.repeat(500)}.gguf`)!
    expect(long.length).toBeLessThanOrEqual(80)
    expect(long.endsWith('.gguf')).toBe(true)
  })

  it('answers a URL with a bad % escape or another scheme with 400 request.invalid, not a 500', async () => {
    const { store } = await open()
    await expect(store.resolve('http://127.0.0.1:9/models/x%zz.gguf')).rejects.toMatchObject({
      code: 'request.invalid',
      status: 400,
      param: 'model',
    })
    expect(() => parseModelUrl('http://[oops/x.gguf')).toThrow(expect.objectContaining({ status: 400 }))
    expect(() => parseModelUrl('file:///etc/passwd')).toThrow(expect.objectContaining({ status: 400 }))
  })
})

describe('redirects while pulling', () => {
  const download = async (url: string, dir: string) =>
    downloadFile({ url, dest: join(dir, 'm.gguf'), signal: AbortSignal.timeout(10_000) })

  it('follows up to five redirects, across servers, keeping Range for a resume', async () => {
    await using cdn = await serveFiles({ '/blob': body })
    const redirects: Record<string, string> = { '/r5': `${cdn.url}/blob` }
    for (let i = 4; i >= 1; i--) redirects[`/r${i}`] = `/r${i + 1}`
    await using mirror = await serveFiles({}, { redirects })
    const { scratch } = await open()
    await writeFile(join(scratch, 'm.gguf.part'), body.subarray(0, 1000))
    expect(await download(`${mirror.url}/r1`, scratch)).toEqual({ bytes: body.length, sha256: sha })
    expect(cdn.requests.at(-1)?.range).toBe('bytes=1000-')
  })

  it('refuses a sixth redirect, a redirect loop and a redirect to another scheme', async () => {
    const redirects: Record<string, string> = { '/loop': '/loop', '/file': 'file:///etc/passwd' }
    for (let i = 1; i <= 6; i++) redirects[`/r${i}`] = `/r${i + 1}`
    await using mirror = await serveFiles({ '/r7': body }, { redirects })
    const { scratch } = await open()
    await expect(download(`${mirror.url}/r1`, scratch)).rejects.toThrow(/more than 5 redirects/)
    await expect(download(`${mirror.url}/loop`, scratch)).rejects.toThrow(/more than 5 redirects/)
    await expect(download(`${mirror.url}/file`, scratch)).rejects.toThrow(/refused a redirect to a file: URL/)
    expect(await readdir(scratch)).toEqual(['a'])
  })
})

describe('sha256 with URL loads', () => {
  it('verifies the pull against it, and keeps it for the URL', async () => {
    await using files = await serveFiles({ '/m/good.gguf': body })
    const { store } = await open()
    const wrong = await store.resolve(`${files.url}/m/good.gguf`, { sha256: 'a'.repeat(64) })
    await expect(pull(store, wrong)).rejects.toThrow(/checksum mismatch/)
    const right = await store.resolve(`${files.url}/m/good.gguf`, { sha256: sha })
    expect((await pull(store, right)).sha256).toBe(sha)
    expect((await store.resolve(`${files.url}/m/good.gguf`)).sha256).toBe(sha)
  })

  it('checks a file already pulled for the URL before it is used', async () => {
    await using files = await serveFiles({ '/m/x.gguf': body })
    const { store } = await open()
    const first = await pull(store, await store.resolve(`${files.url}/m/x.gguf`))
    await expect(store.resolve(`${files.url}/m/x.gguf`, { sha256: 'b'.repeat(64) })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'sha256',
      message: expect.stringContaining(`has sha256 ${sha}`),
    })
    expect((await store.resolve(`${files.url}/m/x.gguf`, { sha256: sha })).path).toBe(first.path)
  })

  it('refuses sha256 with anything but a URL', async () => {
    const { stateDir, store } = await open()
    const file = join(stateDir, 'local.gguf')
    await writeFile(file, body)
    await expect(store.resolve(file, { sha256: sha })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'sha256',
    })
  })
})
