import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeGguf, serveFiles } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { parseCatalogue } from '../src/models/catalogue'
import { ModelStore, refFromFileName } from '../src/models/model-store'

/** The smallest files that pass the store's check that a file is a model (model-header.ts). */
const GGUF = encodeGguf(new Map(), [])
const SAFETENSORS = Buffer.concat([Buffer.from([2, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{}')])

async function store(catalogueText: string) {
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-store-'))
  const { entries, errors } = parseCatalogue(catalogueText)
  expect(errors).toEqual([])
  return { stateDir, models: await ModelStore.open({ stateDir, catalogue: entries }) }
}

describe('ModelStore', () => {
  it.each([
    [
      'not JSON',
      (p: string) => writeFile(p, '{"models": [{"id": "kept-a"}, '),
      /registry\.json is not valid JSON/,
    ],
    ['not a registry', (p: string) => writeFile(p, '{"model": []}\n'), /registry\.json is not a registry/],
    // Running as root, a mode cannot make it unreadable: a directory in its place can.
    ['unreadable', (p: string) => mkdir(p), /cannot read .*registry\.json: EISDIR/],
  ])(
    'refuses to register over a registry.json that is %s, and leaves it as it was',
    async (_what, spoil, error) => {
      const { stateDir, models } = await store('model = []\n')
      const registry = join(stateDir, 'models', 'registry.json')
      await mkdir(join(stateDir, 'models'), { recursive: true })
      await spoil(registry)
      const before = await readFile(registry, 'utf8').catch((e: NodeJS.ErrnoException) => e.code)
      const file = join(stateDir, 'new.gguf')
      await writeFile(file, GGUF)
      const refused = models.resolve(file)
      await expect(refused).rejects.toMatchObject({ code: 'config.invalid', status: 409 })
      await expect(refused).rejects.toThrow(error)
      await expect(refused).rejects.toThrow(/svc does not write over a registry it could not read/)
      expect(await readFile(registry, 'utf8').catch((e: NodeJS.ErrnoException) => e.code)).toBe(before)
    },
  )

  it('keeps the refs it knew when registry.json turns unreadable, and registers again once it is fixed', async () => {
    const { stateDir, models } = await store('model = []\n')
    const a = join(stateDir, 'a.gguf')
    const b = join(stateDir, 'b.gguf')
    await writeFile(a, GGUF)
    await writeFile(b, GGUF)
    await models.resolve(a)
    const registry = join(stateDir, 'models', 'registry.json')
    const good = await readFile(registry, 'utf8')
    await writeFile(registry, 'oops')
    await expect(models.resolve(b)).rejects.toMatchObject({ code: 'config.invalid' })
    expect((await models.get('a'))?.path).toBe(a) // the last good entries stay in force
    await writeFile(registry, good)
    await models.resolve(b)
    const ids = JSON.parse(await readFile(registry, 'utf8')).models.map((m: { id: string }) => m.id)
    expect(ids).toEqual(['a', 'b'])
  })

  it('pulls an image checkpoint into <state>/volumes/comfyui/models/checkpoints/<id>/', async () => {
    await using files = await serveFiles({ '/ckpt/sd_xl_turbo_1.0_fp16.safetensors': SAFETENSORS })
    const { stateDir, models } = await store(
      `[[model]]\nid = "sdxl-turbo"\nprovider = "image"\nformat = "checkpoint"\nurl = "${files.url}/ckpt/sd_xl_turbo_1.0_fp16.safetensors"\n`,
    )
    const entry = await models.resolve('sdxl-turbo')
    expect(entry.path).toBeUndefined()
    expect(await models.isPresent(entry)).toBe(false)
    const pulled = await models.pull(entry, () => {}, AbortSignal.timeout(5_000))
    expect(pulled.path).toBe(
      join(
        stateDir,
        'volumes',
        'comfyui',
        'models',
        'checkpoints',
        'sdxl-turbo',
        'sd_xl_turbo_1.0_fp16.safetensors',
      ),
    )
    expect(await readFile(pulled.path!)).toEqual(SAFETENSORS)
    expect((await models.get('sdxl-turbo'))?.path).toBe(pulled.path)
  })

  it('registers a local file under its stem and an URL under its file name, persistently', async () => {
    const { stateDir, models } = await store('model = []\n')
    const file = join(stateDir, 'My-Model.Q4_K_M.gguf')
    await writeFile(file, GGUF)
    const local = await models.resolve(file)
    expect(local).toMatchObject({
      id: 'my-model.q4_k_m',
      source: 'local',
      path: file,
      format: 'gguf',
      provider: 'llm',
    })
    const remote = await models.resolve('https://example.org/models/Other%20Model.gguf')
    expect(remote).toMatchObject({
      id: 'other-model',
      source: 'pulled',
      url: 'https://example.org/models/Other%20Model.gguf',
    })
    const again = await ModelStore.open({ stateDir, catalogue: [] })
    expect((await again.list()).map((m) => m.id).sort()).toEqual(['my-model.q4_k_m', 'other-model'])
  })

  it('answers model.not_found for an unknown id and a missing file', async () => {
    const { models } = await store('model = []\n')
    await expect(models.resolve('nope')).rejects.toMatchObject({ code: 'model.not_found', status: 404 })
    await expect(models.resolve('/nowhere/x.gguf')).rejects.toMatchObject({
      code: 'model.not_found',
      message: 'no model file at /nowhere/x.gguf',
    })
  })

  it('attaches a projector to a local model, persistently, and refuses one for a curated model', async () => {
    const { stateDir, models } = await store(
      '[[model]]\nid = "qwen3"\nprovider = "llm"\nformat = "gguf"\nurl = "https://example.org/q.gguf"\n',
    )
    const file = join(stateDir, 'vl.gguf')
    const projector = join(stateDir, 'mmproj-vl.gguf')
    await writeFile(file, GGUF)
    await writeFile(projector, GGUF)
    const entry = await models.resolve(file, { mmproj: projector })
    expect(entry).toMatchObject({ id: 'vl', path: file, mmproj: { path: projector, size: GGUF.length } })
    expect(await models.isPresent(entry)).toBe(true)
    const again = await ModelStore.open({ stateDir, catalogue: [] })
    expect((await again.get('vl'))?.mmproj).toEqual({ path: projector, size: GGUF.length })

    await expect(models.resolve(file, { mmproj: join(stateDir, 'nope.gguf') })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'mmproj',
    })
    await expect(models.resolve('qwen3', { mmproj: projector })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'mmproj',
      message: expect.stringContaining('curated'),
    })
  })

  it('counts a model whose projector is missing as not present, and pulls only the projector', async () => {
    await using files = await serveFiles({ '/p/mmproj.gguf': GGUF })
    const { stateDir, models } = await store('model = []\n')
    const file = join(stateDir, 'vl.gguf')
    await writeFile(file, GGUF)
    const entry = await models.resolve(file, { mmproj: `${files.url}/p/mmproj.gguf` })
    expect(await models.isPresent(entry)).toBe(false)
    const progress: { done: number; total: number | null }[] = []
    const pulled = await models.pull(entry, (p) => progress.push(p), AbortSignal.timeout(5_000))
    expect(pulled.mmproj?.path).toBe(join(stateDir, 'models', 'vl', 'mmproj.gguf'))
    expect(await readFile(pulled.mmproj!.path!)).toEqual(GGUF)
    expect(progress.at(-1)).toEqual({ done: 2 * GGUF.length, total: 2 * GGUF.length })
    expect(files.requests.map((r) => r.path)).toEqual(['/p/mmproj.gguf'])
    expect(await models.isPresent(pulled)).toBe(true)
  })

  it('deletes a pulled model together with its downloaded projector', async () => {
    await using files = await serveFiles({
      '/m/vl.gguf': GGUF,
      '/m/mmproj.gguf': GGUF,
    })
    const { stateDir, models } = await store(
      `[[model]]\nid = "vl"\nprovider = "llm"\nformat = "gguf"\nurl = "${files.url}/m/vl.gguf"\nmmproj = { url = "${files.url}/m/mmproj.gguf" }\n`,
    )
    const pulled = await models.pull(await models.resolve('vl'), () => {}, AbortSignal.timeout(5_000))
    expect(pulled.mmproj?.path).toBe(join(stateDir, 'models', 'vl', 'mmproj.gguf'))
    expect(await models.remove(pulled)).toEqual({ deleted: join(stateDir, 'models', 'vl', 'vl.gguf') })
    const after = await models.get('vl')
    expect(after?.path).toBeUndefined()
    expect(after?.mmproj?.path).toBeUndefined()
  })

  it('derives refs from file names', () => {
    expect(refFromFileName('Qwen3-0.6B-Q8_0.gguf')).toBe('qwen3-0.6b-q8_0')
    expect(refFromFileName('__weird name!.gguf')).toBe('weird-name-')
  })
})
