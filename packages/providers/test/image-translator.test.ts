import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ModelEntry, SvcError } from '@svc/core'
import { type ComfyStandIn, type ComfyStandInOptions, readPngInfo, startComfyStandIn } from '@svc/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createImageCache, type ImageCache } from '../src/image/image-cache'
import { createImageTranslator, type ImageTranslatorOptions } from '../src/image/image-translator'

const WORKFLOWS = fileURLToPath(new URL('../../../workflows', import.meta.url))
const CHECKPOINTS = [
  'flux1-schnell-fp8.safetensors',
  'sd_xl_turbo_1.0_fp16.safetensors',
  'v1-5-pruned-emaonly.safetensors',
]
const HF = 'https://huggingface.co'
const MODELS: Record<string, ModelEntry> = {
  'sdxl-turbo': {
    id: 'sdxl-turbo',
    format: 'checkpoint',
    provider: 'image',
    source: 'catalogue',
    url: `${HF}/stabilityai/sdxl-turbo/resolve/main/sd_xl_turbo_1.0_fp16.safetensors`,
  },
  'sd-1.5-pruned-emaonly': {
    id: 'sd-1.5-pruned-emaonly',
    format: 'checkpoint',
    provider: 'image',
    source: 'catalogue',
    url: `${HF}/stable-diffusion-v1-5/stable-diffusion-v1-5/resolve/main/v1-5-pruned-emaonly.safetensors`,
  },
  'flux-schnell': {
    id: 'flux-schnell',
    format: 'checkpoint',
    provider: 'image',
    source: 'catalogue',
    url: `${HF}/Comfy-Org/flux1-schnell/resolve/main/flux1-schnell-fp8.safetensors`,
  },
}

interface ImagesResponse {
  created: number
  data: { url?: string; b64_json?: string }[]
  _svc: { workflow: string; checkpoint: string }
}

let cacheDir: string
let cache: ImageCache
const started: ComfyStandIn[] = []

beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'svc-images-'))
  cache = createImageCache({ dir: cacheDir })
})
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.close()))
  await rm(cacheDir, { recursive: true, force: true })
})

async function comfy(options: Partial<ComfyStandInOptions> = {}): Promise<ComfyStandIn> {
  const c = await startComfyStandIn({ checkpoints: CHECKPOINTS, ...options })
  started.push(c)
  return c
}

function generate(
  c: ComfyStandIn | URL,
  body: Record<string, unknown>,
  options: { model?: string; signal?: AbortSignal; translator?: Partial<ImageTranslatorOptions> } = {},
): Promise<Response> {
  const translator = createImageTranslator({
    cache,
    workflowsDir: WORKFLOWS,
    pollMs: 20,
    ...options.translator,
  })
  return translator.handle({
    endpoint: 'images',
    body,
    base: c instanceof URL ? c : new URL(c.url),
    model: MODELS[options.model ?? 'sdxl-turbo'] ?? { ...MODELS['sdxl-turbo']!, id: options.model! },
    signal: options.signal ?? new AbortController().signal,
  })
}

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SvcError)
  return error as SvcError
}

/** The graph the stand-in received last. */
function lastGraph(c: ComfyStandIn) {
  return c.prompts.at(-1)!.graph
}

describe('image translator against the ComfyUI stand-in', () => {
  it('returns n PNGs of the asked size as cache URLs, with _svc', async () => {
    const c = await comfy()
    const res = await generate(c, { model: 'sdxl-turbo', prompt: 'a red fox', n: 2, size: '512x512' })
    expect(res.status).toBe(200)
    const body = (await res.json()) as ImagesResponse
    expect(body._svc).toEqual({ workflow: 'sdxl-turbo', checkpoint: 'sd_xl_turbo_1.0_fp16.safetensors' })
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60)
    expect(body.data).toHaveLength(2)
    for (const item of body.data) {
      expect(item.url).toMatch(/^\/api\/images\/cache\/[0-9a-f-]{36}\.png$/)
      const cached = await cache.get(item.url!.split('/').pop()!)
      expect(readPngInfo(cached!.bytes)).toMatchObject({ width: 512, height: 512 })
    }
    const graph = lastGraph(c)
    expect(graph['5']!.inputs).toEqual({ width: 512, height: 512, batch_size: 2 })
    expect(graph['6']!.inputs!.text).toBe('a red fox')
    expect(graph['27']!.inputs!.filename_prefix).toMatch(/^svc\/[0-9a-f-]{36}$/)
    expect(c.prompts.at(-1)!.clientId).toEqual(expect.any(String))
  })

  it('removes what ComfyUI wrote once the images are in svc cache, files and history', async () => {
    const c = await comfy()
    const res = await generate(
      c,
      { model: 'sdxl-turbo', prompt: 'a red fox', n: 2, size: '256x256' },
      { translator: { outputDir: c.outputDir } },
    )
    expect(res.status).toBe(200)
    const body = (await res.json()) as ImagesResponse
    expect(body.data).toHaveLength(2)
    for (const item of body.data) expect(await cache.get(item.url!.split('/').pop()!)).toBeDefined()
    const left = await readdir(join(c.outputDir, 'svc')).catch(() => [])
    expect(left).toEqual([])
    const promptId = c.prompts.at(-1)!.promptId
    const deleted = c.requests.filter((r) => r.method === 'POST' && /\/history$/.test(r.url))
    expect(deleted.map((r) => JSON.parse(r.body))).toContainEqual({ delete: [promptId] })
  })

  it('never removes files of other prompts or outside its own output folder', async () => {
    const c = await comfy()
    await mkdir(join(c.outputDir, 'svc'), { recursive: true })
    await writeFile(join(c.outputDir, 'svc', 'someone-else_00001_.png'), 'x')
    await writeFile(join(c.outputDir, 'mine.png'), 'x')
    const res = await generate(
      c,
      { model: 'sdxl-turbo', prompt: 'a red fox', size: '256x256' },
      { translator: { outputDir: c.outputDir } },
    )
    expect(res.status).toBe(200)
    expect(await readdir(join(c.outputDir, 'svc'))).toEqual(['someone-else_00001_.png'])
    expect(await readdir(c.outputDir)).toEqual(expect.arrayContaining(['mine.png', 'svc']))
  })

  it('returns b64_json PNGs at the native size when no size is given', async () => {
    const c = await comfy()
    const res = await generate(
      c,
      { prompt: 'a fox', response_format: 'b64_json' },
      { model: 'sd-1.5-pruned-emaonly' },
    )
    const body = (await res.json()) as ImagesResponse
    expect(body.data).toHaveLength(1)
    const png = readPngInfo(Buffer.from(body.data[0]!.b64_json!, 'base64'))
    expect([png.width, png.height]).toEqual([512, 512])
    expect(body.data[0]!.url).toBeUndefined()
  })

  it.each([
    ['at the top level', (ext: object) => ext],
    ['under extra_body', (ext: object) => ({ extra_body: ext })],
  ])('passes seed, steps, cfg and negative_prompt %s into the graph', async (_where, place) => {
    const c = await comfy()
    const ext = { seed: '18446744073709551615', steps: 3, cfg: 2.5, negative_prompt: 'blurry, text' }
    await generate(c, { prompt: 'a fox', ...place(ext) })
    const graph = lastGraph(c)
    expect(graph['13']!.inputs!.noise_seed).toBe(18446744073709551615n)
    expect(c.prompts.at(-1)!.raw).toContain('"noise_seed":18446744073709551615,')
    expect(graph['22']!.inputs!.steps).toBe(3)
    expect(graph['13']!.inputs!.cfg).toBe(2.5)
    expect(graph['7']!.inputs!.text).toBe('blurry, text')
  })

  it('sends a random 64-bit seed when none is given', async () => {
    const c = await comfy()
    await generate(c, { prompt: 'a fox' })
    await generate(c, { prompt: 'a fox' })
    const [a, b] = c.prompts.map((p) => p.graph['13']!.inputs!.noise_seed)
    expect(a).not.toEqual(b)
  })

  it('maps cfg 0–1 to ComfyUI’s 1.0 (guidance off) for distilled models only', async () => {
    const c = await comfy()
    await generate(c, { prompt: 'x', cfg: 0 })
    expect(lastGraph(c)['13']!.inputs!.cfg).toBe(1)
    await generate(c, { prompt: 'x', cfg: 0 }, { model: 'sd-1.5-pruned-emaonly' })
    expect(lastGraph(c)['3']!.inputs!.cfg).toBe(0)
    await generate(c, { prompt: 'x' }, { model: 'sd-1.5-pruned-emaonly' })
    expect(lastGraph(c)['3']!.inputs).toMatchObject({
      cfg: 7,
      steps: 20,
      sampler_name: 'euler',
      scheduler: 'normal',
    })
  })

  it.each([
    [{ prompt: 'x', size: '500x500' }, 'size'],
    [{ prompt: 'x', n: 9 }, 'n'],
    [{ prompt: 'x', response_format: 'jpeg' }, 'response_format'],
    [{ prompt: 'x', seed: -5 }, 'seed'],
    [{ prompt: 'x', steps: 11 }, 'steps'], // SDTurboScheduler's max is 10
    [{ prompt: '' }, 'prompt'],
  ])('refuses %j with 400 and param %s before ComfyUI sees it', async (body, param) => {
    const c = await comfy()
    const error = await failure(generate(c, body))
    expect([error.status, error.code, error.param]).toEqual([400, 'request.invalid', param])
    expect(c.prompts).toHaveLength(0)
  })

  it('needs multiples of 16 for flux-schnell', async () => {
    const c = await comfy()
    const error = await failure(generate(c, { prompt: 'x', size: '520x520' }, { model: 'flux-schnell' }))
    expect([error.status, error.param]).toEqual([400, 'size'])
    expect(error.message).toMatch(/multiple of 16/)
  })

  it('turns a graph ComfyUI refuses into a 400 naming the node and input', async () => {
    const c = await comfy({ checkpoints: ['something-else.safetensors'] })
    const error = await failure(generate(c, { prompt: 'x' }))
    expect([error.status, error.code, error.param]).toEqual([400, 'request.invalid', null])
    expect(error.message).toContain('node 20 (CheckpointLoaderSimple) input "ckpt_name": Value not in list')
    expect(error.message).toContain("['something-else.safetensors']")
    expect(c.prompts.at(-1)!.status).toBe(400)
  })

  it('picks the checkpoint as ComfyUI lists it in svc’s <id>/<file> layout', async () => {
    const c = await comfy({ checkpoints: ['sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'] })
    const body = (await (await generate(c, { prompt: 'x' })).json()) as ImagesResponse
    expect(body._svc.checkpoint).toBe('sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors')
    expect(lastGraph(c)['20']!.inputs!.ckpt_name).toBe('sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors')
  })

  it('turns a failed execution into a 502 naming the node and the exception', async () => {
    const c = await comfy({ failExecution: 'HIP out of memory' })
    const error = await failure(generate(c, { prompt: 'x' }))
    expect([error.status, error.code]).toEqual([502, 'upstream.error'])
    expect(error.message).toBe('ComfyUI failed at node 13 (SamplerCustom): RuntimeError: HIP out of memory')
  })

  it('answers 504 after timeoutMs and interrupts the prompt', async () => {
    const c = await comfy({ delayMs: 5_000 })
    const error = await failure(generate(c, { prompt: 'x' }, { translator: { timeoutMs: 300 } }))
    expect([error.status, error.code]).toEqual([504, 'upstream.timeout'])
    const promptId = c.prompts[0]!.promptId
    const interrupt = c.requests.find((r) => r.url === '/interrupt')
    expect(JSON.parse(interrupt!.body)).toEqual({ prompt_id: promptId })
  })

  it('interrupts and dequeues its prompt when the client goes away', async () => {
    const c = await comfy({ stepDelayMs: 200 })
    const abort = new AbortController()
    const pending = generate(c, { prompt: 'x', steps: 10 }, { signal: abort.signal })
    while (c.prompts.length === 0) await new Promise((r) => setTimeout(r, 5))
    abort.abort(new Error('client went away'))
    await expect(pending).rejects.toThrow('client went away')
    const promptId = c.prompts[0]!.promptId!
    const bodies = c.requests
      .filter((r) => r.method === 'POST')
      .map((r) => [r.url, JSON.parse(r.body || '{}')])
    expect(bodies).toContainEqual(['/interrupt', { prompt_id: promptId }])
    expect(bodies).toContainEqual(['/queue', { delete: [promptId] }])
    let status: string | undefined
    while (!status) {
      const h = (await (await fetch(`${c.url}/history/${promptId}`)).json()) as Record<
        string,
        { status: { messages: [string][] } }
      >
      status = h[promptId]?.status.messages.at(-1)?.[0]
    }
    expect(status).toBe('execution_interrupted')
  })

  it('answers 502 upstream.unavailable when ComfyUI is not there', async () => {
    const server = createServer()
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    await new Promise<void>((r) => server.close(() => r()))
    const error = await failure(generate(new URL(`http://127.0.0.1:${port}`), { prompt: 'x' }))
    expect([error.status, error.code]).toEqual([502, 'upstream.unavailable'])
  })

  it('refuses a model without a workflow template, and endpoints other than images', async () => {
    const c = await comfy()
    const error = await failure(generate(c, { prompt: 'x' }, { model: 'mystery-model' }))
    expect([error.status, error.param]).toEqual([400, 'model'])
    const translator = createImageTranslator({ cache, workflowsDir: WORKFLOWS })
    const wrong = await failure(
      translator.handle({
        endpoint: 'chat',
        body: {},
        base: new URL(c.url),
        model: MODELS['sdxl-turbo']!,
        signal: new AbortController().signal,
      }),
    )
    expect(wrong.status).toBe(400)
  })
})
