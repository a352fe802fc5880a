/**
 * The image-input nodes of ComfyUI's edit graphs (nodes.py, comfy_extras/nodes_mask.py @ a125cd84),
 * as the stand-in runs them: LoadImage (IMAGE + MASK = 1 − alpha/255), LoadImageMask (one band; alpha
 * inverted the same way), ImageScale, VAEEncode, VAEEncodeForInpaint (grey fill, rounded and grown
 * noise mask), SetLatentNoiseMask, RepeatLatentBatch, ThresholdMask, InvertMask, ImageToMask,
 * MaskToImage. Pixels are real (PNG uploads are decoded); the "model" parts stay the seed's picture.
 */
import { readFile } from 'node:fs/promises'
import { annotatedPath } from './input-files'
import type { NodeResult, NodeRun, NodeValue } from './node-types'
import { growMask, type Mask, type Picture, resizeMask, resizePicture } from './pixels'
import { decodePng } from './png'
import { PyException, PyFloat, type PyValue } from './py-values'

type Value<K extends NodeValue['kind']> = Extract<NodeValue, { kind: K }>

function input<K extends NodeValue['kind']>(run: NodeRun, name: string, kind: K): Value<K> {
  const v = run.links[name]
  if (v?.kind === kind) return v as Value<K>
  throw new PyException('TypeError', `stand-in: ${run.schema.name}.${name} did not receive a ${kind}`)
}

function num(v: PyValue | undefined): number {
  if (v instanceof PyFloat) return v.value
  return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : 0
}

async function load(run: NodeRun): Promise<ReturnType<typeof decodePng>> {
  const name = String(run.inputs.image)
  const path = annotatedPath(name, run.dirs)
  if (!path) throw new PyException('FileNotFoundError', `[Errno 2] No such file or directory: '${name}'`)
  const bytes = await readFile(path).catch(() => {
    throw new PyException('FileNotFoundError', `[Errno 2] No such file or directory: '${path}'`)
  })
  try {
    return decodePng(bytes)
  } catch (error) {
    // PIL opens JPEG and WebP too; the stand-in decodes PNG only (README: not emulated).
    throw new PyException(
      'UnidentifiedImageError',
      `cannot identify image file '${path}' (${(error as Error).message})`,
    )
  }
}

const mask = (m: Mask): NodeValue => ({ kind: 'mask', mask: m })
const image = (picture: Picture, batch = 1): Value<'image'> => ({
  kind: 'image',
  ...size(picture),
  batch,
  picture,
})
const size = (p: { width: number; height: number }) => ({ width: p.width, height: p.height })

/** 1 − alpha/255 per pixel: transparent = 1.0 = regenerate. */
function alphaMask(p: Picture): Mask {
  const data = new Float32Array(p.width * p.height)
  for (let i = 0; i < data.length; i++) data[i] = 1 - p.rgba[i * 4 + 3]! / 255
  return { ...size(p), data }
}

/** Runs an edit node; undefined for a class that is not one of them. */
export async function runEditNode(run: NodeRun): Promise<NodeResult | undefined> {
  switch (run.schema.name) {
    case 'LoadImage': {
      const png = await load(run)
      const m = png.hasAlpha ? alphaMask(png) : { width: 64, height: 64, data: new Float32Array(64 * 64) }
      return { outputs: [image(png), mask(m)] }
    }
    case 'LoadImageMask': {
      const png = await load(run)
      const band = ['red', 'green', 'blue', 'alpha'].indexOf(String(run.inputs.channel))
      const data = new Float32Array(png.width * png.height)
      for (let i = 0; i < data.length; i++) {
        const v = png.rgba[i * 4 + band]! / 255
        data[i] = band === 3 ? 1 - v : v
      }
      return { outputs: [mask({ ...size(png), data })] }
    }
    case 'ImageScale': {
      const from = input(run, 'image', 'image')
      if (!from.picture) throw new PyException('TypeError', 'stand-in: ImageScale needs loaded pixels')
      let width = num(run.inputs.width)
      let height = num(run.inputs.height)
      if (width === 0 && height === 0) return { outputs: [from] }
      if (width === 0) width = Math.max(1, Math.round((from.width * height) / from.height))
      if (height === 0) height = Math.max(1, Math.round((from.height * width) / from.width))
      return { outputs: [image(resizePicture(from.picture, width, height), from.batch)] }
    }
    case 'VAEEncode':
    case 'VAEEncodeForInpaint': {
      const pixels = input(run, 'pixels', 'image')
      if (!pixels.picture) throw new PyException('TypeError', 'stand-in: VAE encoding needs loaded pixels')
      // VAE.encode centre-crops to a multiple of 8; the stand-in floors (sizes are what tests see)
      const width = Math.floor(pixels.width / 8) * 8
      const height = Math.floor(pixels.height / 8) * 8
      let picture = resizePicture(pixels.picture, width, height)
      let noiseMask: Mask | undefined
      if (run.schema.name === 'VAEEncodeForInpaint') {
        const m = resizeMask(input(run, 'mask', 'mask').mask, width, height)
        const grey = new Uint8Array(picture.rgba)
        for (let i = 0; i < m.data.length; i++) if (m.data[i]! >= 0.5) grey.fill(128, i * 4, i * 4 + 3)
        picture = { width, height, rgba: grey }
        noiseMask = growMask(m, num(run.inputs.grow_mask_by))
      }
      const source = noiseMask ? { picture, noiseMask } : { picture }
      return { outputs: [{ kind: 'latent', width, height, batch: pixels.batch, source }] }
    }
    case 'SetLatentNoiseMask': {
      const latent = input(run, 'samples', 'latent')
      const m = input(run, 'mask', 'mask').mask
      if (!latent.source) return { outputs: [latent] }
      return { outputs: [{ ...latent, source: { ...latent.source, noiseMask: m } }] }
    }
    case 'RepeatLatentBatch': {
      const latent = input(run, 'samples', 'latent')
      return { outputs: [{ ...latent, batch: latent.batch * num(run.inputs.amount) }] }
    }
    case 'ThresholdMask': {
      const m = input(run, 'mask', 'mask').mask
      const value = num(run.inputs.value)
      return { outputs: [mask({ ...m, data: m.data.map((v) => (v > value ? 1 : 0)) })] }
    }
    case 'InvertMask': {
      const m = input(run, 'mask', 'mask').mask
      return { outputs: [mask({ ...m, data: m.data.map((v) => 1 - v) })] }
    }
    case 'ImageToMask': {
      const from = input(run, 'image', 'image')
      if (!from.picture) throw new PyException('TypeError', 'stand-in: ImageToMask needs loaded pixels')
      const band = ['red', 'green', 'blue', 'alpha'].indexOf(String(run.inputs.channel))
      const data = new Float32Array(from.width * from.height)
      for (let i = 0; i < data.length; i++) data[i] = from.picture.rgba[i * 4 + band]! / 255
      return { outputs: [mask({ ...size(from), data })] }
    }
    case 'MaskToImage': {
      const m = input(run, 'mask', 'mask').mask
      const rgba = new Uint8Array(m.data.length * 4)
      for (let i = 0; i < m.data.length; i++) rgba.fill(Math.round(m.data[i]! * 255), i * 4, i * 4 + 3)
      for (let i = 0; i < m.data.length; i++) rgba[i * 4 + 3] = 255
      return { outputs: [image({ ...size(m), rgba })] }
    }
    default:
      return undefined
  }
}
