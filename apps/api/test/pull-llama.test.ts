/**
 * Pulling a model from a URL (a local HTTP server here): progress on the event stream,
 * resume after a cut, and a checksum mismatch that leaves nothing that looks complete.
 */
import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serveFiles, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import {
  call,
  collectEvents,
  type ErrorBody,
  LIGHT_ARGS,
  llamaServerAvailable,
  requestLoad,
  type SlotBody,
} from './live'

const available = llamaServerAvailable()
let weights: Buffer

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-gguf-'))
  weights = await readFile((await writeTinyGguf(join(dir, 'tiny.gguf'), { role: 'chat' })).path)
})

const api = (env: Record<string, string> = {}) => startApiWithConfig({ slots: { primary: LIGHT_ARGS }, env })

describe.skipIf(!available)('pulling a model', () => {
  it('shows pulling with progress first, resumes a cut download, then serves', async () => {
    await using files = await serveFiles({ '/models/Tiny-Pulled.Q8_0.gguf': weights })
    await using svc = await api()
    const url = `${files.url}/models/Tiny-Pulled.Q8_0.gguf`

    files.cutNextAfter(100_000)
    const first = await requestLoad<ErrorBody>(svc, 'primary', { model: url })
    expect(first.status).toBe(502)
    expect(first.body.error.message).toContain(`pull of ${url} failed after`)
    const failed = (await call<SlotBody>(svc, '/api/slots/primary')).body
    expect(failed).toMatchObject({ state: 'offline', lastError: expect.stringContaining(url) })

    const watching = await collectEvents(svc, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.to === 'ready'),
    )
    const second = await requestLoad<SlotBody>(svc, 'primary', { model: url })
    expect(second.status).toBe(200)
    expect(second.body).toMatchObject({ state: 'ready', model: 'tiny-pulled.q8_0' })
    expect(files.requests.at(-1)?.range).toBe('bytes=100000-')
    const events = await watching.done
    const path = events.filter((e) => e.event === 'slot.transition').map((e) => e.data.to)
    expect(path).toEqual(['pulling', 'starting', 'warming', 'ready'])
    const progress = events.filter((e) => e.event === 'slot.progress')
    expect(progress.at(-1)?.data).toMatchObject({
      slot: 'primary',
      model: 'tiny-pulled.q8_0',
      done: weights.length,
      total: weights.length,
    })
    expect(progress[0]?.data.done).toBeGreaterThanOrEqual(100_000)

    const chat = await sendChat(svc, { model: 'tiny-pulled.q8_0', max_tokens: 2 })
    expect(chat.status).toBe(200)
  }, 60_000)

  it('leaves the slot offline with a clear error and no complete-looking file on a checksum mismatch', async () => {
    await using files = await serveFiles({ '/tiny.gguf': weights })
    const dir = await mkdtemp(join(tmpdir(), 'svc-manifest-'))
    const manifest = join(dir, 'models.toml')
    const good = createHash('sha256').update(weights).digest('hex')
    const bad = good.replace(/^./, good[0] === 'a' ? 'b' : 'a')
    await writeFile(
      manifest,
      `[[model]]\nid = "tiny-checked"\nprovider = "llm"\nformat = "gguf"\nrole = "chat"\nurl = "${files.url}/tiny.gguf"\nsha256 = "${bad}"\n`,
    )
    await using svc = await api({ SVC_MODELS_MANIFEST: manifest })
    const r = await requestLoad<ErrorBody>(svc, 'primary', { model: 'tiny-checked' })
    expect(r.status).toBe(502)
    expect(r.body.error.message).toContain(`checksum mismatch (expected sha256 ${bad}, got ${good})`)
    const slot = (await call<SlotBody>(svc, '/api/slots/primary')).body
    expect(slot).toMatchObject({
      state: 'offline',
      model: null,
      lastError: expect.stringContaining('checksum mismatch'),
    })
    expect(await readdir(join(svc.stateDir, 'models', 'tiny-checked'))).toEqual([])
    const models = await call<{ models: { id: string; present: boolean }[] }>(svc, '/api/models')
    expect(models.body.models.find((m) => m.id === 'tiny-checked')?.present).toBe(false)
  }, 60_000)
})
