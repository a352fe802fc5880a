/**
 * What is not a model never becomes a ref, and every ref can be forgotten (docs/models.md#forgetting-a-model):
 * a text file, a truncated GGUF and a PNG are refused by a slot load before anything is registered; a
 * download that is not a model is deleted with its ref; a local ref is forgotten and its file stays.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildTinyGguf, serveFiles, writeSvcConfig, writeTinyGguf } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { startAuthServer } from './auth-harness'
import { testApp } from './helpers'
import { LIGHT_ARGS, llamaServerAvailable } from './live'

/** What these routes answer: a model list, an error body, or the forget/load answer. */
interface Answer {
  error: { code: string; message: string; param: string | null }
  models: { id: string; present?: boolean }[]
  [key: string]: unknown
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')

async function setup() {
  const { app, deps } = await testApp()
  const dir = join(deps.paths.stateDir, 'files')
  await mkdir(dir, { recursive: true })
  const registry = join(dir, 'models', 'registry.json')
  const json = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })
    return { status: res.status, body: (await res.json()) as Answer }
  }
  const ids = async () => (await json('GET', '/api/models')).body.models.map((m) => m.id)
  const registryText = () => readFile(registry, 'utf8').catch(() => '(none)')
  return { app, deps, dir, json, ids, registryText }
}

describe('models that are not models', () => {
  it('refuses a text file, a truncated GGUF and a PNG on load, before any ref exists', async () => {
    const { dir, json, ids, registryText } = await setup()
    const gguf = buildTinyGguf({ role: 'chat' }).bytes
    const cases: [string, Buffer | string, string][] = [
      ['start.gguf', 'just some notes about a model\n', 'expected a GGUF model, found a text file'],
      ['cut.gguf', gguf.subarray(0, 100), 'a truncated GGUF: header ends at byte 100'],
      ['cat.gguf', PNG, 'expected a GGUF model, found a PNG image'],
    ]
    const before = await ids()
    const registryBefore = await registryText()
    for (const [name, bytes, found] of cases) {
      const path = join(dir, name)
      await writeFile(path, bytes)
      const r = await json('POST', '/api/slots/mine/load?wait=true', { model: path })
      expect(r.status, JSON.stringify(r.body)).toBe(400)
      expect(r.body.error).toMatchObject({ code: 'request.invalid', param: 'model' })
      expect(r.body.error.message).toBe(`the file ${path} is not a model svc can load: ${found}`)
      expect((await json('GET', '/api/slots/mine')).body).toMatchObject({ state: 'offline', model: null })
    }
    expect(await ids()).toEqual(before)
    expect(await registryText()).toBe(registryBefore)
  })

  it('deletes a download that is not a model, and its ref with it', async () => {
    await using files = await serveFiles({
      '/login.gguf': Buffer.from('<!DOCTYPE html><html>sign in</html>'),
    })
    const { deps, ids } = await setup()
    const url = `${files.url}/login.gguf`
    const entry = await deps.slots.store.resolve(url)
    expect(await ids()).toContain('login')
    const pull = deps.slots.store.pull(entry, () => {}, new AbortController().signal)
    await expect(pull).rejects.toMatchObject({
      code: 'request.invalid',
      message: `the download of "login" (${url}) is not a model svc can load: expected a GGUF model, found an HTML page; it was deleted`,
    })
    expect(await ids()).not.toContain('login')
    await expect(stat(deps.slots.store.dest(entry))).rejects.toThrow(/ENOENT/)
  })
})

describe('forgetting a ref', () => {
  it('forgets a local ref and leaves its file where it is', async () => {
    const { dir, deps, json, ids } = await setup()
    const path = join(dir, 'Tiny-Chat.gguf')
    const bytes = buildTinyGguf({ role: 'chat' }).bytes
    await writeFile(path, bytes)
    await deps.slots.store.resolve(path) // what a load by path registers
    expect(await ids()).toContain('tiny-chat')
    const r = await json('POST', '/api/models/tiny-chat/forget')
    expect(r).toEqual({ status: 200, body: { id: 'tiny-chat', forgotten: true, deleted: false } })
    expect(await ids()).not.toContain('tiny-chat')
    expect(await readFile(path)).toEqual(bytes)
    // Forgotten is forgotten: again is 404, and loading the path again registers it anew.
    expect((await json('POST', '/api/models/tiny-chat/forget')).status).toBe(404)
  })

  it('forgets a local ref whose file is gone (it stayed as "on disk: no" before)', async () => {
    const { dir, deps, json, ids } = await setup()
    const path = join(dir, 'gone.gguf')
    await writeFile(path, buildTinyGguf({ role: 'chat' }).bytes)
    await deps.slots.store.resolve(path)
    await rm(path)
    expect((await json('GET', '/api/models')).body.models.find((m) => m.id === 'gone')).toMatchObject({
      present: false,
    })
    expect((await json('POST', '/api/models/gone/forget')).body).toEqual({
      id: 'gone',
      forgotten: true,
      deleted: false,
    })
    expect(await ids()).not.toContain('gone')
  })

  it('points DELETE of a local ref to forget, and refuses to forget a curated id', async () => {
    const { dir, deps, json } = await setup()
    const path = join(dir, 'mine.gguf')
    await writeFile(path, buildTinyGguf({ role: 'chat' }).bytes)
    await deps.slots.store.resolve(path)
    const del = await json('DELETE', '/api/models/mine')
    expect(del.status).toBe(400)
    expect(del.body.error.message).toContain('svc models forget mine')
    const curated = await json('POST', '/api/models/qwen3-0.6b-q8_0/forget')
    expect(curated.status).toBe(400)
    expect(curated.body.error).toMatchObject({
      code: 'request.invalid',
      message: expect.stringContaining('curated'),
    })
    expect((await json('POST', '/api/models/no-such-ref/forget')).body.error.code).toBe('model.not_found')
  })
})

describe.skipIf(!llamaServerAvailable())('forgetting a ref a slot holds', () => {
  it('is refused while the slot runs it, and forgets it (file kept) once unloaded', async () => {
    let gguf = ''
    await using server = await startAuthServer({ SVC_AUTH_ENABLED: '0' }, async ({ configDir, stateDir }) => {
      await writeSvcConfig(configDir, {
        slots: { primary: `backend = "cpu"\nruntime = "process"\nrestart = "no"\n${LIGHT_ARGS}` },
      })
      await mkdir(stateDir, { recursive: true })
      gguf = (await writeTinyGguf(join(stateDir, 'held.gguf'), { role: 'chat' })).path
    })
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(server.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, body: (await res.json()) as Answer }
    }
    const load = await post('/api/slots/primary/load?wait=true', { model: gguf })
    expect(load.status, JSON.stringify(load.body)).toBe(200)
    const held = await post('/api/models/held/forget')
    expect(held.status).toBe(409)
    expect(held.body.error).toMatchObject({
      code: 'model.in_use',
      message: expect.stringContaining('primary'),
    })
    expect((await post('/api/slots/primary/unload?wait=true')).status).toBe(200)
    expect(await post('/api/models/held/forget')).toEqual({
      status: 200,
      body: { id: 'held', forgotten: true, deleted: false },
    })
    expect((await stat(gguf)).isFile()).toBe(true)
  }, 120_000)
})
