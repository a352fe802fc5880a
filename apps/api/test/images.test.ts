/**
 * End to end: the official `openai` package → svc → the `img` slot (runtime = "remote") →
 * the ComfyUI stand-in, which validates every graph against ComfyUI's real node schemas and renders
 * real PNGs.
 */
import { type ApiProcess, type ComfyStandIn, readPngInfo, startComfyStandIn } from '@svc/testing'
import type OpenAI from 'openai'
import { BadRequestError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SDXL, startImageStack } from './image-stack'
import { call, type ErrorBody, loadOk } from './live'

describe('image generation through ComfyUI', () => {
  let comfy: ComfyStandIn
  let api: ApiProcess
  let client: OpenAI

  beforeAll(async () => {
    ;({ comfy, api, client } = await startImageStack())
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await comfy?.close()
  })

  it('returns two PNG URLs of the requested size, with seed, steps, cfg and negative prompt applied', async () => {
    const params = {
      model: 'sdxl-turbo',
      prompt: 'a lighthouse at dusk',
      n: 2,
      size: '512x512' as const,
      // extra_body fields: the SDKs put them at the top level of the JSON body
      seed: 1234,
      steps: 3,
      cfg: 0,
      negative_prompt: 'blurry',
    }
    const r = (await client.images.generate(
      params as OpenAI.ImageGenerateParamsNonStreaming,
    )) as OpenAI.ImagesResponse & {
      _svc?: { workflow?: string; checkpoint?: string }
    }
    expect(r.data).toHaveLength(2)
    expect(r._svc).toEqual({ workflow: 'sdxl-turbo', checkpoint: SDXL })
    for (const image of r.data ?? []) {
      expect(image.url).toMatch(/^\/api\/images\/cache\/[0-9a-f-]{36}\.png$/)
      const res = await fetch(api.url + image.url)
      expect(res.headers.get('content-type')).toBe('image/png')
      const png = readPngInfo(new Uint8Array(await res.arrayBuffer()))
      expect([png.width, png.height]).toEqual([512, 512])
    }
    const graph = String(comfy.prompts.at(-1)?.raw)
    expect(graph).toContain('"noise_seed":1234')
    expect(graph).toContain('"steps":3')
    expect(graph).toContain('blurry')
    expect(graph).toContain('"batch_size":2')
  })

  it('returns decodable PNGs as b64_json, and takes extensions nested under extra_body too', async () => {
    const body = {
      model: 'sdxl-turbo',
      prompt: 'a red cube',
      response_format: 'b64_json',
      size: '256x256',
      extra_body: { seed: '18446744073709551615', steps: 2 },
    }
    const r = await call<{ data: { b64_json: string }[] }>(api, '/v1/images/generations', {
      method: 'POST',
      json: body,
    })
    expect(r.status).toBe(200)
    const png = readPngInfo(Buffer.from(r.body.data[0]!.b64_json, 'base64'))
    expect([png.width, png.height]).toEqual([256, 256])
    expect(String(comfy.prompts.at(-1)?.raw)).toContain('18446744073709551615')
  })

  it.each([
    [{ size: '500x512' }, 'size'],
    [{ size: 'big' }, 'size'],
    [{ n: 9 }, 'n'],
    [{ response_format: 'gif' }, 'response_format'],
    [{ seed: -1 }, 'seed'],
    [{ seed: 'eleven' }, 'seed'],
  ])('refuses %j with 400 and param %s', async (extra, param) => {
    const error = await client.images
      .generate({ model: 'sdxl-turbo', prompt: 'x', ...extra } as OpenAI.ImageGenerateParamsNonStreaming)
      .catch((e) => e)
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.code).toBe('request.invalid')
    expect(error.param).toBe(param)
  })

  it('answers 409 for a catalogued model not in the img slot, and 404 for an unknown one', async () => {
    const notLoaded = await client.images
      .generate({ model: 'sd-1.5-pruned-emaonly', prompt: 'x' })
      .catch((e) => e)
    expect(notLoaded.status).toBe(409)
    expect(notLoaded.code).toBe('model.not_loaded')
    const unknown = await client.images.generate({ model: 'nope', prompt: 'x' }).catch((e) => e)
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe('model.not_found')
  })

  it('turns a graph ComfyUI refuses into a clear error body, not a 500', async () => {
    // Another ComfyUI that lacks the checkpoint: it refuses ckpt_name (value_not_in_list).
    await using other = await startComfyStandIn({ checkpoints: ['something-else.safetensors'] })
    const moveTo = async (url: string) => {
      await call(api, '/api/slots/img', { method: 'PUT', json: { runtime: 'remote', url } })
      await call(api, '/api/slots/img/unload?wait=true', { method: 'POST' })
      await loadOk(api, 'img', 'sdxl-turbo')
    }
    await moveTo(other.url)
    try {
      const r = await call<ErrorBody>(api, '/v1/images/generations', {
        method: 'POST',
        json: { model: 'sdxl-turbo', prompt: 'x', size: '256x256' },
      })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('request.invalid')
      expect(r.body.error.message).toMatch(/ckpt_name/)
      expect(other.prompts.at(-1)?.status).toBe(400)
    } finally {
      await moveTo(comfy.url)
    }
  })

  it('serves cached images only under strict names', async () => {
    for (const path of [
      '/api/images/cache/../install/state',
      '/api/images/cache/%2e%2e%2fx.png',
      '/api/images/cache/abc.png',
      '/api/images/cache/00000000-0000-0000-0000-000000000000.png',
    ]) {
      const res = await fetch(api.url + path)
      expect(res.status, path).toBe(404)
    }
  })

  it('interrupts the prompt when the client goes away', async () => {
    // A step far longer than the test: the prompt is still running whenever the client leaves, however
    // slow the machine (an interrupt ends the stand-in's step at once, as it does ComfyUI's).
    comfy.configure({ stepDelayMs: 60_000 })
    const count = (path: string) =>
      comfy.requests.filter((r) => r.method === 'POST' && r.url.endsWith(path)).length
    const [prompts, interrupts] = [count('/prompt'), count('/interrupt')] // earlier tests' requests
    const queued = () => count('/prompt') > prompts
    const interrupted = () => count('/interrupt') > interrupts
    const ac = new AbortController()
    const pending = client.images
      .generate({ model: 'sdxl-turbo', prompt: 'slow', size: '256x256' }, { signal: ac.signal })
      .catch((e) => e)
    try {
      await expect.poll(queued, { timeout: 15_000 }).toBe(true)
      expect(interrupted()).toBe(false)
      ac.abort()
      await pending
      await expect.poll(interrupted, { timeout: 15_000 }).toBe(true)
    } finally {
      comfy.configure({ stepDelayMs: 0 })
    }
  })
})
