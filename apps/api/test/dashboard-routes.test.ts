/**
 * The API routes the dashboard's pages need, in-process over real files, a real
 * HTTP file server for pulls and the real espeak-ng speech server in the tts slot.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelPullEvent } from '@svc/core'
import { type FileServer, fillerGguf, serveFiles } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp } from './helpers'

type App = Awaited<ReturnType<typeof testApp>>
const FILE = fillerGguf(300_000) // svc checks a download's GGUF header

let files: FileServer
let dir: string
let t: App

async function json<T = Record<string, unknown>>(res: Response | Promise<Response>) {
  const r = await res
  return { status: r.status, body: (await r.json()) as T }
}
const send = (method: string, path: string, body?: unknown) =>
  t.app.request(path, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })

beforeAll(async () => {
  files = await serveFiles({ '/tiny.gguf': FILE })
  dir = await mkdtemp(join(tmpdir(), 'svc-dash-routes-'))
  const catalogue = join(dir, 'models.toml')
  const shipped = await readFile(new URL('../../../manifests/models.toml', import.meta.url), 'utf8')
  await writeFile(
    catalogue,
    `${shipped}\n[[model]]\nid = "tiny-pull"\nprovider = "llm"\nformat = "gguf"\nrole = "chat"\nurl = "${files.url}/tiny.gguf"\nsize = ${FILE.length}\n`,
  )
  t = await testApp({}, { catalogueFile: catalogue })
})

afterAll(async () => {
  await t?.deps.slots.manager.stopAll()
  await files?.[Symbol.asyncDispose]()
  await rm(dir, { recursive: true, force: true })
})

describe('custom slots', () => {
  it('creates one with POST /api/slots and refuses to overwrite it', async () => {
    const created = await json(send('POST', '/api/slots', { name: 'coder', provider: 'llm', role: 'chat' }))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: 'coder',
      provider: 'llm',
      state: 'offline',
      config: { role: 'chat' },
    })
    const again = await json<{ error: { param: string } }>(
      send('POST', '/api/slots', { name: 'coder', provider: 'llm' }),
    )
    expect(again.status).toBe(400)
    expect(again.body.error.param).toBe('name')
    expect(
      (await json<{ slots: { name: string }[] }>(send('GET', '/api/slots'))).body.slots.map((s) => s.name),
    ).toContain('coder')
  })

  it.each([
    [{ name: 'x1' }, 'provider'],
    [{ name: 'Bad Name', provider: 'llm' }, 'name'],
    [{ name: 'far', provider: 'image', runtime: 'remote' }, 'url'],
    [{ name: 'far', provider: 'image', runtime: 'remote', url: 'ftp://x' }, 'url'],
    [{ name: 'typo', provider: 'llm', backnd: 'cpu' }, 'backnd'],
  ])('names the field the server refuses in %j', async (body, param) => {
    const r = await json<{ error: { code: string; param: string; message: string } }>(
      send('POST', '/api/slots', body),
    )
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ code: 'request.invalid', param })
  })
})

describe('pulling and deleting models', () => {
  it('pulls a model without loading it, reporting progress as model.pull events, then deletes it', async () => {
    const events: ModelPullEvent[] = []
    const off = t.deps.slots.bus.on('model.pull', (e) => events.push(e))
    const done = t.deps.slots.bus.once('model.pull', (e) => e.model === 'tiny-pull' && e.status !== 'pulling')
    const started = await json(send('POST', '/api/models/tiny-pull/pull'))
    expect(started).toMatchObject({ status: 202, body: { model: 'tiny-pull', status: 'pulling' } })
    expect((await done).status).toBe('done')
    off()
    expect(events[0]).toMatchObject({ model: 'tiny-pull', status: 'pulling' })
    const list = await json<{ models: Record<string, unknown>[] }>(send('GET', '/api/models'))
    expect(list.body.models.find((m) => m.id === 'tiny-pull')).toMatchObject({
      present: true,
      size: FILE.length,
      slot: null,
    })
    expect((await json(send('POST', '/api/models/tiny-pull/pull'))).body).toMatchObject({ status: 'done' })

    expect(await json(send('DELETE', '/api/models/tiny-pull'))).toEqual({
      status: 200,
      body: { id: 'tiny-pull', deleted: true },
    })
    const after = await json<{ models: Record<string, unknown>[] }>(send('GET', '/api/models'))
    expect(after.body.models.find((m) => m.id === 'tiny-pull')).toMatchObject({
      present: false,
      needs_pull: true,
    })
  })

  it('answers 404 for an unknown model and 400 for a model with nothing to download', async () => {
    expect((await send('POST', '/api/models/nope/pull')).status).toBe(404)
    expect((await send('DELETE', '/api/models/nope')).status).toBe(404)
    const r = await json<{ error: { code: string } }>(send('POST', '/api/models/espeak-ng/pull'))
    expect(r.status).toBe(400)
  })
})

describe('the tts slot: voices, logs, and a model in use', () => {
  beforeAll(async () => {
    await t.deps.slots.manager.load('tts', 'espeak-ng')
  }, 30_000)

  it('lists the voices of the running engine at GET /v1/audio/voices', async () => {
    const r = await json<{ model: string; voices: { id: string; source: string }[] }>(
      send('GET', '/v1/audio/voices'),
    )
    expect(r.status).toBe(200)
    expect(r.body.model).toBe('espeak-ng')
    const ids = r.body.voices.map((v) => v.id)
    expect(ids).toEqual(expect.arrayContaining(['alloy', 'nova', 'en-us']))
    expect(new Set(r.body.voices.map((v) => v.source))).toEqual(new Set(['builtin']))
    expect(new Set(ids).size).toBe(ids.length) // one entry per id (espeak-ng lists some twice)
  })

  it('refuses to delete a model a slot holds', async () => {
    const r = await json<{ error: { code: string; message: string } }>(
      send('DELETE', '/api/models/espeak-ng'),
    )
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('model.in_use')
    expect(r.body.error.message).toContain('tts')
  })

  it('streams the upstream log with ?follow=1, and starts over for a new upstream', async () => {
    const res = await t.app.request('/api/slots/tts/logs?follow=1')
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const until = async (re: RegExp) => {
      while (!re.test(text)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`stream ended before ${re}: ${text}`)
        text += decoder.decode(value)
      }
    }
    await until(/event: lines\ndata: .*listening/)
    expect(text).toContain('"reset":true')
    text = ''
    await t.deps.slots.manager.unload('tts')
    await t.deps.slots.manager.load('tts', 'espeak-ng')
    await until(/event: lines\ndata: .*listening/)
    await reader.cancel()
    const plain = await json<{ lines: string[] }>(send('GET', '/api/slots/tts/logs'))
    expect(plain.body.lines.join('\n')).toContain('listening')
  }, 30_000)

  it('lists no engine voices while the tts slot is offline (uploaded ones still list)', async () => {
    await t.deps.slots.manager.unload('tts')
    const r = await json<{ model: string | null; voices: unknown[] }>(send('GET', '/v1/audio/voices'))
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ object: 'list', model: null, voices: [] })
  })
})
