/**
 * The stand-in's edit side: ComfyUI's upload routes (protocol.md §9.1–9.2) and the image-input nodes
 * (LoadImage, LoadImageMask, VAEEncodeForInpaint …) with ComfyUI's mask convention (MASK = 1 − alpha/255:
 * transparent = regenerate).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type ComfyStandIn, decodePng, paintPng, startComfyStandIn } from '../src/index'

const open: ComfyStandIn[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()))
})

async function standIn(): Promise<ComfyStandIn> {
  const c = await startComfyStandIn({ checkpoints: ['v1-5-pruned-emaonly.safetensors'] })
  open.push(c)
  return c
}

const png = paintPng

async function upload(
  c: ComfyStandIn,
  route: 'image' | 'mask',
  name: string | undefined,
  bytes: Buffer,
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData()
  if (name !== undefined) form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name)
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return fetch(`${c.url}/upload/${route}`, { method: 'POST', body: form })
}

const SD = 'v1-5-pruned-emaonly.safetensors'

/** ComfyUI's inpaint example topology (workflows.md (d2)) at 64×64. */
function inpaintGraph(image: string, mask: string): Record<string, unknown> {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: SD } },
    '10': { class_type: 'LoadImage', inputs: { image } },
    '11': {
      class_type: 'ImageScale',
      inputs: { image: ['10', 0], upscale_method: 'lanczos', width: 64, height: 64, crop: 'disabled' },
    },
    '14': { class_type: 'LoadImageMask', inputs: { image: mask, channel: 'alpha' } },
    '16': { class_type: 'ThresholdMask', inputs: { mask: ['14', 0], value: 0.998 } },
    '15': {
      class_type: 'VAEEncodeForInpaint',
      inputs: { pixels: ['11', 0], vae: ['4', 2], mask: ['16', 0], grow_mask_by: 0 },
    },
    '13': { class_type: 'RepeatLatentBatch', inputs: { samples: ['15', 0], amount: 2 } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a hat', clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['4', 1] } },
    '3': {
      class_type: 'KSampler',
      inputs: {
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['13', 0],
        seed: 7,
        steps: 2,
        cfg: 7.0,
        sampler_name: 'euler',
        scheduler: 'normal',
        denoise: 1.0,
      },
    },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'svc/edit' } },
  }
}

async function run(c: ComfyStandIn, graph: Record<string, unknown>) {
  const res = await fetch(`${c.url}/prompt`, { method: 'POST', body: JSON.stringify({ prompt: graph }) })
  const body = (await res.json()) as { prompt_id: string }
  expect(res.status, JSON.stringify(body)).toBe(200)
  for (;;) {
    const h = (await (await fetch(`${c.url}/history/${body.prompt_id}`)).json()) as Record<
      string,
      { outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }> }
    >
    const entry = h[body.prompt_id]
    if (entry) return entry
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('ComfyUI stand-in: uploads', () => {
  it('stores /upload/image under its name, keeps identical bytes, numbers different ones', async () => {
    const c = await standIn()
    const red = png(8, 8, [255, 0, 0])
    const first = await upload(c, 'image', 'cat.png', red, { subfolder: 'svc' })
    expect(await first.json()).toEqual({ name: 'cat.png', subfolder: 'svc', type: 'input' })
    const same = await upload(c, 'image', 'cat.png', red, { subfolder: 'svc' })
    expect(await same.json()).toEqual({ name: 'cat.png', subfolder: 'svc', type: 'input' })
    const other = await upload(c, 'image', 'cat.png', png(8, 8, [0, 0, 255]), { subfolder: 'svc' })
    expect(await other.json()).toEqual({ name: 'cat (1).png', subfolder: 'svc', type: 'input' })
    const replaced = await upload(c, 'image', 'cat.png', png(8, 8, [0, 255, 0]), {
      subfolder: 'svc',
      overwrite: 'true',
    })
    expect(await replaced.json()).toEqual({ name: 'cat.png', subfolder: 'svc', type: 'input' })
    expect(c.uploads.map((u) => u.name)).toEqual(['cat.png', 'cat.png', 'cat (1).png', 'cat.png'])
  })

  it('answers 400 without a file part or for a name outside its folder, 500 for an unknown type', async () => {
    const c = await standIn()
    expect((await upload(c, 'image', undefined, Buffer.alloc(0), { type: 'input' })).status).toBe(400)
    expect((await upload(c, 'image', 'x.png', png(2, 2, [0, 0, 0]), { subfolder: '../..' })).status).toBe(400)
    expect((await upload(c, 'image', 'x.png', png(2, 2, [0, 0, 0]), { type: 'models' })).status).toBe(500)
  })

  it('merges /upload/mask into the original: its RGB with the mask’s alpha', async () => {
    const c = await standIn()
    await upload(c, 'image', 'photo.png', png(4, 4, [10, 20, 30]))
    const mask = png(4, 4, [0, 0, 0], (x) => (x < 2 ? 0 : 255))
    const res = await upload(c, 'mask', 'photo-mask.png', mask, {
      original_ref: JSON.stringify({ filename: 'photo.png', type: 'input' }),
    })
    expect(await res.json()).toEqual({ name: 'photo-mask.png', subfolder: '', type: 'input' })
    const { readFile } = await import('node:fs/promises')
    const merged = decodePng(await readFile(`${c.inputDir}/photo-mask.png`))
    expect([...merged.rgba.subarray(0, 8)]).toEqual([10, 20, 30, 0, 10, 20, 30, 0])
    expect([...merged.rgba.subarray(8, 12)]).toEqual([10, 20, 30, 255])
    const noRef = await upload(c, 'mask', 'm2.png', mask)
    expect(noRef.status).toBe(500)
  })
})

describe('ComfyUI stand-in: edit graphs', () => {
  it('refuses a LoadImage of a file it does not have, as VALIDATE_INPUTS does', async () => {
    const c = await standIn()
    const res = await fetch(`${c.url}/prompt`, {
      method: 'POST',
      body: JSON.stringify({ prompt: inpaintGraph('svc/missing.png', 'svc/missing-mask.png') }),
    })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { node_errors: Record<string, { errors: { details: string }[] }> }
    expect(body.node_errors['10']?.errors[0]).toEqual({
      type: 'custom_validation_failed',
      message: 'Custom validation failed for node',
      details: 'image - Invalid image file: svc/missing.png',
      extra_info: { input_name: 'image' },
    })
    expect(body.node_errors['14']?.errors[0]?.details).toBe(
      'image - Invalid image file: svc/missing-mask.png',
    )
  })

  it('lists the input folder in object_info for LoadImage', async () => {
    const c = await standIn()
    await upload(c, 'image', 'b.png', png(2, 2, [1, 2, 3]))
    await upload(c, 'image', 'a.png', png(2, 2, [1, 2, 3]))
    const info = (await (await fetch(`${c.url}/object_info/LoadImage`)).json()) as {
      LoadImage: { input: { required: { image: [string[], unknown] } } }
    }
    expect(info.LoadImage.input.required.image[0]).toEqual(['a.png', 'b.png'])
  })

  it('regenerates only where the mask is transparent (MASK = 1 − alpha) and keeps the rest', async () => {
    const c = await standIn()
    await upload(c, 'image', 'src.png', png(64, 64, [200, 100, 50]), { subfolder: 'svc' })
    // OpenAI's convention: fully transparent (alpha 0) = edit; left half transparent
    await upload(
      c,
      'image',
      'mask.png',
      png(64, 64, [0, 0, 0], (x) => (x < 32 ? 0 : 255)),
      { subfolder: 'svc' },
    )
    const entry = await run(c, inpaintGraph('svc/src.png', 'svc/mask.png'))
    const images = entry.outputs['9']!.images
    expect(images).toHaveLength(2)
    const q = new URLSearchParams({ ...images[0]!, type: 'output' })
    const out = decodePng(new Uint8Array(await (await fetch(`${c.url}/view?${q}`)).arrayBuffer()))
    expect([out.width, out.height]).toEqual([64, 64])
    const at = (x: number, y: number) => [...out.rgba.subarray((y * 64 + x) * 4, (y * 64 + x) * 4 + 3)]
    for (const y of [0, 31, 63]) {
      expect(at(48, y)).toEqual([200, 100, 50]) // opaque: kept
      expect(at(16, y)).not.toEqual([200, 100, 50]) // transparent: regenerated
    }
  })
})
