/**
 * What can run here, computed in one place (issue 39): a real API process on this machine (real
 * hardware detection: no ROCm here) says per slot what it serves and whether it can run, lists in
 * `/v1/models` only what can answer, and in `/api/models` a vision model's size with its projector.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, writeTinyGguf, writeTinyMmproj } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, collectEvents, LIGHT_ARGS, llamaServerAvailable, loadOk, requestLoad } from './live'

interface Verdict {
  backend: string
  ok: boolean
  reason: string | null
}
interface SlotFactsBody {
  name: string
  state: string
  serves: string[]
  runnable: { ok: boolean; reason: string | null; backends: Verdict[] }
  memory: { device: string; bytes: number; estimated: boolean } | null
  context_size: number | null
}
interface ModelRow {
  id: string
  provider: string
  size: number | null
  present: boolean
  offered: boolean
  reason: string | null
  mmproj: { size: number | null } | null
}

const available = llamaServerAvailable()
const sizeOf = async (path: string) => (await stat(path)).size
// The reference box of these tests has no ROCm compute device; a machine with one says ok for rocm.
const noRocm = !existsSync('/dev/kfd')

describe('what can run here', () => {
  let api: ApiProcess
  let dir: string

  const slots = async () => (await call<{ slots: SlotFactsBody[] }>(api, '/api/slots')).body.slots
  const slot = async (name: string) => (await call<SlotFactsBody>(api, `/api/slots/${name}`)).body
  const v1Ids = async () =>
    (await call<{ data: { id: string }[] }>(api, '/v1/models')).body.data.map((m) => m.id)
  const models = async () => (await call<{ models: ModelRow[] }>(api, '/api/models')).body.models
  /** Ollama's list (Open WebUI and the like read it): the same rule as /v1/models. */
  const tagNames = async () =>
    (await call<{ models: { name: string }[] }>(api, '/api/tags')).body.models.map((m) => m.name)

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-runnable-'))
    api = await startApiWithConfig({
      slots: {
        primary: LIGHT_ARGS,
        embed: `restart = "no"\n${LIGHT_ARGS}`,
        // The image slot as shipped: backend rocm.
      },
    })
    // A checkpoint on disk for an image model: a file, but nothing here can run it.
    const checkpoints = join(
      api.stateDir,
      'volumes',
      'comfyui',
      'models',
      'checkpoints',
      'sd-1.5-pruned-emaonly',
    )
    await mkdir(checkpoints, { recursive: true })
    await writeFile(join(checkpoints, 'v1-5-pruned-emaonly.safetensors'), 'not really weights')
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  it.skipIf(!noRocm)(
    'says the img slot cannot run on a box without ROCm, and why, backend by backend',
    async () => {
      const img = await slot('img')
      expect(img.serves).toEqual(['images'])
      expect(img.runnable.ok).toBe(false)
      expect(img.runnable.reason).toMatch(/rocm/)
      expect(img.runnable.backends).toContainEqual({
        backend: 'rocm',
        ok: false,
        reason: expect.stringContaining('/dev/kfd'),
      })
      // A load picker offers only the backends marked ok: none of the image provider's runs here.
      expect(img.runnable.backends.map((b) => b.backend).sort()).toEqual(['cpu', 'cuda', 'rocm', 'vulkan'])
    },
  )

  it('says what each slot serves, and that the cpu llm slots run here', async () => {
    const all = new Map((await slots()).map((s) => [s.name, s]))
    expect(all.get('primary')?.serves).toEqual(['chat'])
    expect(all.get('embed')?.serves).toEqual(['embeddings'])
    expect(all.get('stt')?.serves).toEqual(['transcription'])
    expect(all.get('tts')?.serves).toEqual(['speech'])
    expect(all.get('img')?.serves).toEqual(['images'])
    const primary = all.get('primary')!
    expect(primary.runnable).toMatchObject({ ok: true, reason: null })
    expect(primary.runnable.backends).toContainEqual({ backend: 'cpu', ok: true, reason: null })
    // Offline: nothing held, no context.
    expect(primary).toMatchObject({ state: 'offline', memory: null, context_size: null })
  })

  it('gives the same facts in the event stream’s snapshot', async () => {
    const watching = await collectEvents(api, (events) => events.some((e) => e.event === 'snapshot'))
    const snapshot = (await watching.done).find((e) => e.event === 'snapshot')!
    const listed = new Map((snapshot.data.slots as SlotFactsBody[]).map((s) => [s.name, s]))
    expect(listed.get('embed')?.serves).toEqual(['embeddings'])
    expect(listed.get('primary')?.runnable.ok).toBe(true)
    if (noRocm) expect(listed.get('img')?.runnable.ok).toBe(false)
  })

  it('lists in /v1/models no offline embed, stt or tts slot, and no ref this machine does not offer', async () => {
    const ids = await v1Ids()
    expect(ids[0]).toBe('primary')
    for (const hidden of ['embed', 'stt', 'tts', 'img']) expect(ids).not.toContain(hidden)
    const tags = await tagNames()
    expect(tags).toContain('primary:latest')
    for (const hidden of ['embed', 'stt', 'tts', 'img']) expect(tags).not.toContain(`${hidden}:latest`)
    expect(tags).not.toContain('sd-1.5-pruned-emaonly:latest')
    const rows = await models()
    const checkpoint = rows.find((m) => m.id === 'sd-1.5-pruned-emaonly')!
    expect(checkpoint).toMatchObject({ present: true, offered: false, reason: expect.any(String) })
    expect(ids).not.toContain('sd-1.5-pruned-emaonly')
    const npu = rows.filter((m) => m.provider === 'npu')
    expect(npu.length).toBeGreaterThan(0)
    expect(npu.every((m) => !m.offered && m.reason)).toBe(true)
    for (const m of npu) expect(ids).not.toContain(m.id)
  })

  it("counts a catalogued vision model's projector in its size", async () => {
    const row = (await models()).find((m) => m.id === 'smolvlm-500m-instruct-q8_0')!
    expect(row.mmproj?.size).toBe(109_000_000)
    expect(row.size).toBe(437_000_000 + 109_000_000) // manifests/models.toml: the model and its projector
  })

  it.skipIf(!available)(
    "counts a local vision model's projector in its size",
    async () => {
      const model = await writeTinyGguf(join(dir, 'tiny-seeing.gguf'))
      const projector = await writeTinyMmproj(join(dir, 'tiny-seeing-mmproj.gguf'), {
        nEmbdText: model.nEmbd,
      })
      await call(api, '/api/slots/seeing', { method: 'PUT', json: { provider: 'llm' } })
      const loaded = await requestLoad(api, 'seeing', { model: model.path, mmproj: projector.path })
      expect(loaded.status, JSON.stringify(loaded.body)).toBe(200)
      const row = (await models()).find((m) => m.id === 'tiny-seeing')!
      const [modelBytes, projectorBytes] = await Promise.all([model.path, projector.path].map(sizeOf))
      expect(row.mmproj?.size).toBe(projectorBytes)
      expect(row.size).toBe(modelBytes! + projectorBytes!)
      await call(api, '/api/slots/seeing/unload?wait=true', { method: 'POST' })
    },
    60_000,
  )

  it.skipIf(!available)(
    'lists the embed slot once it holds a model, with its memory and context',
    async () => {
      const embed = await writeTinyGguf(join(dir, 'tiny-embed.gguf'), { role: 'embed' })
      await loadOk(api, 'embed', embed.path)
      expect(await v1Ids()).toContain('embed')
      expect(await tagNames()).toContain('embed:latest')
      const facts = await slot('embed')
      expect(facts.memory).toMatchObject({ device: 'ram', bytes: expect.any(Number) })
      expect(facts.memory!.bytes).toBeGreaterThan(0)
      expect(facts.context_size).toBe(256) // LIGHT_ARGS' -c 256, as llama-server reports it
      const unloaded = await call<SlotFactsBody>(api, '/api/slots/embed/unload?wait=true', { method: 'POST' })
      expect(unloaded.body).toMatchObject({ state: 'offline', memory: null, context_size: null })
      expect(await v1Ids()).not.toContain('embed')
    },
    60_000,
  )
})
