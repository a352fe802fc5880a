/**
 * End to end: the official `openai` package's `images.edit` / `images.createVariation` → svc →
 * the `img` slot (runtime = "remote") → the ComfyUI stand-in, which takes the uploads on its own
 * `/upload/image`, validates the edit graphs against ComfyUI's real node schemas and runs them on the
 * uploaded pixels (docs/models.md, "Image edits").
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type ApiProcess, type ComfyStandIn, decodePng, paintPng } from '@svc/testing'
import type OpenAI from 'openai'
import { BadRequestError, toFile } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startImageStack } from './image-stack'
import { call, type ErrorBody } from './live'

const SOURCE = [200, 100, 50]

/** A `width × height` PNG of the source colour (RGB), or RGBA with `alpha(x, y)`. */
const png = (width: number, height: number, rgb = SOURCE, alpha?: (x: number, y: number) => number) =>
  paintPng(width, height, rgb, alpha)

/** OpenAI's mask: fully transparent on the left half (edit there), opaque on the right (keep). */
const leftHalfMask = (size: number) => png(size, size, [0, 0, 0], (x) => (x < size / 2 ? 0 : 255))

type Graph = Record<string, { class_type?: string; inputs?: Record<string, unknown> }>
const classes = (graph: Graph) => Object.values(graph).map((n) => n.class_type)

async function editForm(
  fields: Record<string, string>,
  files: [string, Buffer, string][],
): Promise<ErrorBody> {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  for (const [name, bytes, file] of files) form.append(name, new Blob([new Uint8Array(bytes)]), file)
  return form as unknown as ErrorBody
}

describe('image edits through ComfyUI', () => {
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

  it('edits an image without a mask (image-to-image): uploads it, runs the img2img graph, returns n images', async () => {
    const uploads = comfy.uploads.length
    const r = (await client.images.edit({
      model: 'sdxl-turbo',
      image: await toFile(png(96, 64), 'photo.png', { type: 'image/png' }),
      prompt: 'a red hat',
      n: 2,
      size: '256x256' as '256x256',
      response_format: 'b64_json',
      // extensions, as extra_body would send them
      ...({ seed: '42', strength: '0.5' } as object),
    })) as OpenAI.ImagesResponse & { _svc?: { workflow?: string } }
    expect(r.data).toHaveLength(2)
    expect(r._svc?.workflow).toBe('sdxl-turbo.img2img')
    for (const image of r.data ?? []) {
      const out = decodePng(Buffer.from(image.b64_json!, 'base64'))
      expect([out.width, out.height]).toEqual([256, 256])
    }
    expect(comfy.uploads.slice(uploads)).toHaveLength(1)
    const upload = comfy.uploads.at(-1)!
    expect(upload).toMatchObject({ route: '/upload/image', subfolder: 'svc', type: 'input' })
    const graph = comfy.prompts.at(-1)!.graph as Graph
    expect(classes(graph)).toContain('VAEEncode')
    expect(classes(graph)).not.toContain('LoadImageMask')
    const load = Object.values(graph).find((n) => n.class_type === 'LoadImage')!
    expect(load.inputs?.image).toBe(`svc/${upload.name}`)
    const sampler = Object.values(graph).find((n) => n.class_type === 'KSampler')!
    expect(sampler.inputs).toMatchObject({ denoise: 0.5, seed: 42 })
  })

  it('inpaints with a mask: only the transparent area changes, the mask reaching ComfyUI as its MASK = 1 − alpha expects', async () => {
    const mask = leftHalfMask(128)
    const r = await client.images.edit({
      model: 'sdxl-turbo',
      image: await toFile(png(128, 128), 'photo.png', { type: 'image/png' }),
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      prompt: 'a red hat',
      size: '128x128' as '256x256',
    })
    // url by default, served from svc's cache
    const url = r.data?.[0]?.url
    expect(url).toMatch(/^\/api\/images\/cache\/[0-9a-f-]{36}\.png$/)
    const out = decodePng(new Uint8Array(await (await fetch(api.url + url)).arrayBuffer()))
    expect([out.width, out.height]).toEqual([128, 128])
    const at = (x: number, y: number) => [...out.rgba.subarray((y * 128 + x) * 4, (y * 128 + x) * 4 + 3)]
    for (const y of [0, 64, 127]) {
      // the opaque half is kept (beyond the few pixels grow_mask_by adds at the edge) …
      expect(at(72, y)).toEqual(SOURCE)
      expect(at(127, y)).toEqual(SOURCE)
      // … and the transparent half is regenerated
      expect(at(0, y)).not.toEqual(SOURCE)
      expect(at(50, y)).not.toEqual(SOURCE)
    }
    // svc sends OpenAI's mask unchanged and reads its alpha with LoadImageMask: no inversion of its own
    const graph = comfy.prompts.at(-1)!.graph as Graph
    const loader = Object.values(graph).find((n) => n.class_type === 'LoadImageMask')!
    expect(loader.inputs?.channel).toBe('alpha')
    expect(classes(graph)).not.toContain('InvertMask')
    const stored = await readFile(join(comfy.inputDir, String(loader.inputs?.image)))
    expect(stored.equals(mask)).toBe(true)
  })

  it('makes variations of an image (image-to-image without a prompt)', async () => {
    const r = await client.images.createVariation({
      model: 'sdxl-turbo',
      image: await toFile(png(64, 64), 'photo.png', { type: 'image/png' }),
      n: 1,
      size: '256x256',
      response_format: 'b64_json',
    })
    expect(r.data).toHaveLength(1)
    const graph = comfy.prompts.at(-1)!.graph as Graph
    expect(classes(graph)).toContain('VAEEncode')
  })

  it('sizes an edit without size at the model’s native size, keeping the image’s shape', async () => {
    const r = await client.images.edit({
      model: 'sdxl-turbo',
      image: await toFile(png(200, 100), 'wide.png', { type: 'image/png' }),
      prompt: 'x',
      response_format: 'b64_json',
    })
    const out = decodePng(Buffer.from(r.data![0]!.b64_json!, 'base64'))
    expect([out.width, out.height]).toEqual([512, 256])
  })

  it.each([
    ['no image', { prompt: 'x' }, [], 'image'],
    ['no prompt', {}, [['image', png(64, 64), 'a.png']], 'prompt'],
    [
      'an image that is not a PNG, JPEG or WebP',
      { prompt: 'x' },
      [['image', Buffer.from('hello'), 'a.png']],
      'image',
    ],
    [
      'two images',
      { prompt: 'x' },
      [
        ['image[]', png(64, 64), 'a.png'],
        ['image[]', png(64, 64), 'b.png'],
      ],
      'image',
    ],
    [
      'a mask of another size',
      { prompt: 'x' },
      [
        ['image', png(64, 64), 'a.png'],
        ['mask', leftHalfMask(32), 'm.png'],
      ],
      'mask',
    ],
    [
      'a mask without alpha',
      { prompt: 'x' },
      [
        ['image', png(64, 64), 'a.png'],
        ['mask', png(64, 64), 'm.png'],
      ],
      'mask',
    ],
    ['a strength above 1', { prompt: 'x', strength: '1.5' }, [['image', png(64, 64), 'a.png']], 'strength'],
    ['a bad size', { prompt: 'x', size: '100x100' }, [['image', png(64, 64), 'a.png']], 'size'],
  ] as [string, Record<string, string>, [string, Buffer, string][], string][])(
    'refuses %s with 400 and its param',
    async (_what, fields, files, param) => {
      const prompts = comfy.prompts.length
      const res = await fetch(`${api.url}/v1/images/edits`, {
        method: 'POST',
        body: (await editForm({ model: 'sdxl-turbo', ...fields }, files)) as unknown as FormData,
      })
      const body = (await res.json()) as ErrorBody
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(body.error).toMatchObject({ code: 'request.invalid', type: 'invalid_request_error', param })
      expect(comfy.prompts.length).toBe(prompts)
    },
  )

  it('refuses an image larger than 4096 px a side, through the openai client too', async () => {
    const big = png(8, 8)
    big.writeUInt32BE(5000, 16) // IHDR width: svc reads only the header
    const error = await client.images
      .edit({ model: 'sdxl-turbo', image: await toFile(big, 'big.png'), prompt: 'x' })
      .catch((e) => e)
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.param).toBe('image')
    expect(error.message).toMatch(/5000×8/)
  })

  it('refuses a body that is not multipart with 400', async () => {
    const r = await call<ErrorBody>(api, '/v1/images/edits', { method: 'POST', json: { prompt: 'x' } })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('request.invalid')
  })
})
