import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { paintPng, readPngInfo, startComfyStandIn } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { stringifyJsonBig } from '../src/image/big-json'
import { fillWorkflow, loadWorkflowTemplate } from '../src/image/workflow-template'
import { loadCatalogue } from '../src/models/catalogue'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const WORKFLOWS = `${ROOT}workflows`
const CHECKPOINTS = [
  'flux1-schnell-fp8.safetensors',
  'sd_xl_turbo_1.0_fp16.safetensors',
  'v1-5-pruned-emaonly.safetensors',
]

async function allTemplateIds(): Promise<string[]> {
  return (await readdir(WORKFLOWS))
    .filter((f) => f.endsWith('.json') && !f.endsWith('.meta.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort()
}

const EDIT = /^(.+)\.(img2img|inpaint)$/

/** Generation templates (`<model>`); edit templates are `<model>.img2img` / `<model>.inpaint`. */
async function templateIds(): Promise<string[]> {
  return (await allTemplateIds()).filter((id) => !EDIT.test(id))
}

async function editTemplateIds(): Promise<string[]> {
  return (await allTemplateIds()).filter((id) => EDIT.test(id))
}

/** A `size × size` RGBA PNG; `alpha(x)` per column. */
const rgbaPng = (size: number, alpha: (x: number) => number) => paintPng(size, size, [90, 140, 200], alpha)

async function uploadTo(url: string, name: string, bytes: Buffer): Promise<void> {
  const form = new FormData()
  form.append('image', new Blob([new Uint8Array(bytes)]), name)
  form.append('subfolder', 'svc')
  const res = await fetch(`${url}/upload/image`, { method: 'POST', body: form })
  expect(res.status).toBe(200)
}

describe('workflow templates', () => {
  it('exist for the three curated image models, each with a sidecar that matches its graph', async () => {
    expect(await templateIds()).toEqual(['flux-schnell', 'sd-1.5-pruned-emaonly', 'sdxl-turbo'])
    for (const id of await templateIds()) {
      const t = await loadWorkflowTemplate(WORKFLOWS, id)
      expect(t.meta.model).toBe(id)
      expect(t.meta.edit).toBeUndefined()
      expect(t.graph[t.meta.output]?.class_type).toBe('SaveImage')
    }
    // each has an image-to-image and an inpainting edit graph for the same checkpoint
    const edits = (await templateIds()).flatMap((id) => [`${id}.img2img`, `${id}.inpaint`]).sort()
    expect(await editTemplateIds()).toEqual(edits)
    for (const id of edits) {
      const t = await loadWorkflowTemplate(WORKFLOWS, id)
      const [, model, kind] = EDIT.exec(id) as unknown as [string, string, string]
      expect(t.meta.model).toBe(model)
      expect(t.meta.edit).toBe(kind)
      expect(t.checkpoint).toBe((await loadWorkflowTemplate(WORKFLOWS, model)).checkpoint)
      expect(t.graph[t.meta.inputs.image![0]]?.class_type).toBe('LoadImage')
      if (kind === 'inpaint') {
        // OpenAI's mask alpha, read as ComfyUI's MASK = 1 − alpha/255: no inversion node in between
        const maskNode = t.graph[t.meta.inputs.mask![0]]!
        expect(maskNode).toMatchObject({ class_type: 'LoadImageMask', inputs: { channel: 'alpha' } })
        const classes = Object.values(t.graph).map((n) => n.class_type)
        expect(classes).not.toContain('InvertMask')
        expect(classes).toContain('VAEEncodeForInpaint')
      }
    }
  })

  it('carry the defaults workflows/README.md gives each model', async () => {
    const facts = {
      'sd-1.5-pruned-emaonly': {
        size: [512, 512],
        steps: 20,
        cfg: 7,
        ckpt: 'v1-5-pruned-emaonly.safetensors',
      },
      'sdxl-turbo': { size: [512, 512], steps: 1, cfg: 1, ckpt: 'sd_xl_turbo_1.0_fp16.safetensors' },
      'flux-schnell': { size: [1024, 1024], steps: 4, cfg: 1, ckpt: 'flux1-schnell-fp8.safetensors' },
    }
    for (const [id, want] of Object.entries(facts)) {
      const t = await loadWorkflowTemplate(WORKFLOWS, id)
      const at = (k: keyof typeof t.meta.inputs) =>
        t.graph[t.meta.inputs[k]![0]]!.inputs[t.meta.inputs[k]![1]]
      expect([t.nativeSize.width, t.nativeSize.height], id).toEqual(want.size)
      expect(at('steps'), id).toBe(want.steps)
      expect(at('cfg'), id).toBe(want.cfg)
      expect(t.checkpoint, id).toBe(want.ckpt)
    }
  })

  it('pass the stand-in’s validation as they are, and filled in, and run to PNGs of the asked size', async () => {
    await using comfy = await startComfyStandIn({ checkpoints: CHECKPOINTS })
    for (const id of await templateIds()) {
      const t = await loadWorkflowTemplate(WORKFLOWS, id)
      const filled = fillWorkflow(t, {
        prompt: 'a red fox',
        negativePrompt: 'blurry',
        seed: 18446744073709551615n,
        steps: 2,
        cfg: 1.5,
        width: 128,
        height: 64,
        batchSize: 2,
        checkpoint: t.checkpoint,
        filenamePrefix: `svc/test-${id}`,
      })
      const entry = await runAll(comfy.url, id, [t.graph, filled])
      expect(comfy.prompts.at(-1)!.raw).toContain('18446744073709551615')
      const images = entry.outputs[t.meta.output]!.images
      expect(images.map((i) => i.filename)).toEqual([`test-${id}_00001_.png`, `test-${id}_00002_.png`])
      expect(await imageSize(comfy.url, images[0]!)).toEqual([128, 64])
    }
  })

  it('edit graphs pass the stand-in’s validation as they are and filled in, and run to PNGs of the asked size', async () => {
    await using comfy = await startComfyStandIn({ checkpoints: CHECKPOINTS })
    // the names the templates carry, and a request's own
    await uploadTo(
      comfy.url,
      'edit-image.png',
      rgbaPng(64, () => 255),
    )
    await uploadTo(
      comfy.url,
      'edit-mask.png',
      rgbaPng(64, (x) => (x < 32 ? 0 : 255)),
    )
    await uploadTo(
      comfy.url,
      'edit-req.png',
      rgbaPng(96, () => 255),
    )
    await uploadTo(
      comfy.url,
      'edit-req-mask.png',
      rgbaPng(96, (x) => (x < 48 ? 0 : 255)),
    )
    for (const id of await editTemplateIds()) {
      const t = await loadWorkflowTemplate(WORKFLOWS, id)
      const filled = fillWorkflow(t, {
        prompt: 'a red hat',
        negativePrompt: '',
        seed: 18446744073709551615n,
        steps: 2,
        cfg: 1.5,
        width: 128,
        height: 64,
        batchSize: 2,
        checkpoint: t.checkpoint,
        filenamePrefix: `svc/test-${id}`,
        image: 'svc/edit-req.png',
        mask: 'svc/edit-req-mask.png',
        denoise: 0.5,
      })
      if (t.meta.edit === 'img2img') expect(stringifyJsonBig(filled)).not.toContain('edit-req-mask')
      const entry = await runAll(comfy.url, id, [t.graph, filled])
      expect(entry.status.status_str, JSON.stringify(entry)).toBe('success')
      const images = entry.outputs[t.meta.output]!.images
      expect(images).toHaveLength(2)
      expect(await imageSize(comfy.url, images[0]!)).toEqual([128, 64])
    }
  })

  it('match the catalogue: every image model with a workflow has one, with its native size', async () => {
    const catalogue = await loadCatalogue(`${ROOT}manifests/models.toml`)
    expect(catalogue.errors).toEqual([])
    const images = catalogue.entries.filter((e) => e.provider === 'image')
    expect(images.map((e) => e.id).sort()).toEqual(['flux-schnell', 'sd-1.5-pruned-emaonly', 'sdxl-turbo'])
    for (const entry of images) {
      expect(entry.url).toMatch(/^https:\/\/huggingface\.co\/.+\/resolve\/main\/.+\.safetensors$/)
      expect(entry.license_url).toMatch(/^https:\/\//)
      if (!entry.workflow) continue
      const t = await loadWorkflowTemplate(WORKFLOWS, entry.workflow)
      expect(entry.native_size).toBe(`${t.nativeSize.width}x${t.nativeSize.height}`)
      // the template's ckpt_name is the file the catalogue downloads
      expect(decodeURIComponent(entry.url!.split('/').pop()!)).toBe(t.checkpoint)
    }
    const flux = catalogue.entries.find((e) => e.id === 'flux-schnell')!
    expect(flux.min_vram_gb).toBeGreaterThanOrEqual(24)
    expect(await readFile(`${ROOT}manifests/models.toml`, 'utf8')).not.toMatch(/^sha256/m)
  })
})

interface OutputImage {
  filename: string
  subfolder: string
}

interface HistoryEntry {
  status: { status_str: string }
  outputs: Record<string, { images: OutputImage[] }>
}

/**
 * Submits each graph of template `id` to the stand-in (each must validate: 200, no node_errors) and
 * waits for the last one's `/history` entry.
 */
async function runAll(base: string, id: string, graphs: unknown[]): Promise<HistoryEntry> {
  let promptId = ''
  for (const graph of graphs) {
    const res = await fetch(`${base}/prompt`, { method: 'POST', body: stringifyJsonBig({ prompt: graph }) })
    const body = (await res.json()) as { prompt_id: string; node_errors: unknown }
    expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(200)
    expect(body.node_errors).toEqual({})
    promptId = body.prompt_id
  }
  for (;;) {
    const history = (await (await fetch(`${base}/history/${promptId}`)).json()) as Record<
      string,
      HistoryEntry
    >
    const entry = history[promptId]
    if (entry) return entry
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** [width, height] of an output image, read through `/view`. */
async function imageSize(base: string, image: OutputImage): Promise<[number, number]> {
  const q = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: 'output' })
  const png = readPngInfo(new Uint8Array(await (await fetch(`${base}/view?${q}`)).arrayBuffer()))
  return [png.width, png.height]
}
