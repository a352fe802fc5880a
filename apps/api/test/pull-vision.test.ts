/**
 * A catalogued vision model is two files, the weights and the projector. A pull fetches
 * both (one progress figure on the event stream), resumes each after a cut, and the slot starts
 * llama-server with both (`--mmproj`). A local HTTP server is the source.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  encodePng,
  renderImage,
  serveFiles,
  startApi,
  writeSvcConfig,
  writeTinyGguf,
  writeTinyMmproj,
} from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, collectEvents, LIGHT_ARGS, llamaServerAvailable, requestLoad } from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('pulling a catalogued vision model', () => {
  let weights: Buffer
  let projector: Buffer

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-vision-pull-'))
    weights = await readFile((await writeTinyGguf(join(dir, 'm.gguf'))).path)
    projector = await readFile((await writeTinyMmproj(join(dir, 'p.gguf'))).path)
  })

  it('fetches model and projector, resuming each after a cut, and starts the slot with both', async () => {
    await using files = await serveFiles({
      '/vlm/Tiny-VL-Q8_0.gguf': weights,
      '/vlm/mmproj-Tiny-VL-f32.gguf': projector,
    })
    const modelUrl = `${files.url}/vlm/Tiny-VL-Q8_0.gguf`
    const projectorUrl = `${files.url}/vlm/mmproj-Tiny-VL-f32.gguf`
    const dir = await mkdtemp(join(tmpdir(), 'svc-vision-cfg-'))
    const manifest = join(dir, 'models.toml')
    // Sizes a little off on purpose: the catalogue's are approximate, the downloads say the truth.
    await writeFile(
      manifest,
      [
        '[[model]]',
        'id = "tiny-vl"',
        'provider = "llm"',
        'format = "gguf"',
        'role = "chat"',
        `url = "${modelUrl}"`,
        `size = ${weights.length + 1000}`,
        `mmproj = { url = "${projectorUrl}", size = ${projector.length - 1000} }`,
        '',
      ].join('\n'),
    )
    await writeSvcConfig(dir, { slots: { primary: LIGHT_ARGS } })
    await using svc = await startApi({ configDir: dir, env: { SVC_MODELS_MANIFEST: manifest } })
    const load = () => requestLoad(svc, 'primary', { model: 'tiny-vl' })

    // 1: the model file is cut; the projector is not reached.
    files.cutNextAfter(100_000, '/vlm/Tiny-VL-Q8_0.gguf')
    const first = await load()
    expect(first.status).toBe(502)
    expect(first.body.error?.message).toContain(`pull of ${modelUrl} failed after`)

    // 2: the model resumes and completes; the projector is cut.
    files.cutNextAfter(20_000, '/vlm/mmproj-Tiny-VL-f32.gguf')
    const second = await load()
    expect(second.status).toBe(502)
    expect(second.body.error?.message).toContain(`pull of ${projectorUrl} failed after`)
    const models = await call<{ models: Record<string, unknown>[] }>(svc, '/api/models')
    expect(models.body.models.find((m) => m.id === 'tiny-vl')).toMatchObject({
      present: false,
      needs_pull: true,
      mmproj: { present: false },
    })

    // 3: only the projector is fetched, from where it was cut; then the slot starts with both.
    const watching = await collectEvents(svc, (events) =>
      events.some((e) => e.event === 'slot.transition' && e.data.to === 'ready'),
    )
    const third = await load()
    expect(third.status, JSON.stringify(third.body)).toBe(200)
    expect(third.body).toMatchObject({ state: 'ready', model: 'tiny-vl' })

    const ranges = (path: string) => files.requests.filter((r) => r.path === path).map((r) => r.range)
    expect(ranges('/vlm/Tiny-VL-Q8_0.gguf')).toEqual([undefined, 'bytes=100000-'])
    expect(ranges('/vlm/mmproj-Tiny-VL-f32.gguf')).toEqual([undefined, 'bytes=20000-'])

    const events = await watching.done
    const progress = events.filter((e) => e.event === 'slot.progress').map((e) => e.data)
    expect(progress.at(-1)).toMatchObject({ done: weights.length + projector.length })
    expect(progress.every((p) => p.total === weights.length + projector.length)).toBe(true)

    const logs = await call<{ lines: string[] }>(svc, '/api/slots/primary/logs')
    expect(logs.body.lines.join('\n')).toMatch(/loaded multimodal model, '.*mmproj-Tiny-VL-f32\.gguf'/)
    const listed = await call<{ models: Record<string, unknown>[] }>(svc, '/api/models')
    expect(listed.body.models.find((m) => m.id === 'tiny-vl')).toMatchObject({
      present: true,
      needs_pull: false,
      capabilities: ['chat', 'vision'],
      mmproj: { present: true, size: projector.length },
    })
    const chat = await call<{ usage: { prompt_tokens: number } }>(svc, '/v1/chat/completions', {
      method: 'POST',
      json: {
        model: 'tiny-vl',
        max_tokens: 2,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'image_url',
                image_url: {
                  url: `data:image/png;base64,${encodePng(renderImage(3n, 0, 32, 32)).toString('base64')}`,
                },
              },
            ],
          },
        ],
      },
    })
    expect(chat.status, JSON.stringify(chat.body)).toBe(200)
  }, 90_000)
})
