/**
 * Pictures and masks as the stand-in's edit nodes pass them along: RGBA pixels and float masks
 * (ComfyUI's MASK: 1.0 = regenerate, 0.0 = keep), with the few operations the nodes need —
 * nearest-neighbour resizing (the stand-in does no model maths, so a cheap resize is faithful enough:
 * sizes are exact, colours are close) and the final composition of a sampled latent into an image.
 */
import type { PngImage } from './png'
import { renderImage } from './render'

export interface Picture {
  width: number
  height: number
  /** `width * height * 4` bytes, RGBA. */
  rgba: Uint8Array
}

export interface Mask {
  width: number
  height: number
  /** `width * height` values from 0 to 1; 1 = the area to regenerate. */
  data: Float32Array
}

/** Nearest-neighbour resize (ComfyUI resizes bilinearly or with lanczos; sizes are what count here). */
export function resizePicture(p: Picture, width: number, height: number): Picture {
  if (p.width === width && p.height === height) return p
  const rgba = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    const sy = Math.min(p.height - 1, Math.floor((y * p.height) / height))
    for (let x = 0; x < width; x++) {
      const sx = Math.min(p.width - 1, Math.floor((x * p.width) / width))
      rgba.set(p.rgba.subarray((sy * p.width + sx) * 4, (sy * p.width + sx) * 4 + 4), (y * width + x) * 4)
    }
  }
  return { width, height, rgba }
}

export function resizeMask(m: Mask, width: number, height: number): Mask {
  if (m.width === width && m.height === height) return m
  const data = new Float32Array(width * height)
  for (let y = 0; y < height; y++) {
    const sy = Math.min(m.height - 1, Math.floor((y * m.height) / height))
    for (let x = 0; x < width; x++) {
      data[y * width + x] = m.data[sy * m.width + Math.min(m.width - 1, Math.floor((x * m.width) / width))]!
    }
  }
  return { width, height, data }
}

/**
 * VAEEncodeForInpaint's `noise_mask`: `round(mask)` dilated by a `grow × grow` box
 * (`conv2d(…, padding=ceil((grow-1)/2))`, clamped, cut back to the mask's size).
 */
export function growMask(m: Mask, grow: number): Mask {
  const rounded = m.data.map((v) => (v >= 0.5 ? 1 : 0))
  if (grow <= 0) return { ...m, data: rounded }
  const pad = Math.ceil((grow - 1) / 2)
  const data = new Float32Array(m.width * m.height)
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      let hit = 0
      for (let ky = 0; ky < grow && !hit; ky++) {
        const sy = y + ky - pad
        if (sy < 0 || sy >= m.height) continue
        for (let kx = 0; kx < grow; kx++) {
          const sx = x + kx - pad
          if (sx >= 0 && sx < m.width && rounded[sy * m.width + sx]) {
            hit = 1
            break
          }
        }
      }
      data[y * m.width + x] = hit
    }
  }
  return { width: m.width, height: m.height, data }
}

/** What a decoded latent remembers of the picture it started from (img2img, inpainting). */
export interface LatentSource {
  picture: Picture
  /** The sampler may only change this area (absent: everywhere). */
  noiseMask?: Mask
  /** The sampler's `denoise`: how far the result moves from the source (1 = all the way). */
  denoise?: number
}

/**
 * Image `index` of a batch: the seed's picture (`renderImage`); with a source, blended into it by
 * `denoise` and, where a noise mask says "keep", the source itself — so a test can see which area a
 * mask let the sampler change.
 */
export function composeImage(
  seed: bigint,
  index: number,
  width: number,
  height: number,
  source?: LatentSource,
): PngImage {
  const image = renderImage(seed, index, width, height)
  if (!source) return image
  const picture = resizePicture(source.picture, width, height)
  const mask = source.noiseMask && resizeMask(source.noiseMask, width, height)
  const strength = source.denoise ?? 1
  const stride = 1 + width * 3
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const m = (mask ? mask.data[y * width + x]! : 1) * strength
      for (let c = 0; c < 3; c++) {
        const at = y * stride + 1 + x * 3 + c
        const from = picture.rgba[(y * width + x) * 4 + c]!
        image.scanlines[at] = Math.round(from * (1 - m) + image.scanlines[at]! * m)
      }
    }
  }
  return image
}

/** A picture as PNG scanlines (RGB, filter 0). */
export function pictureScanlines(p: Picture): PngImage {
  const stride = 1 + p.width * 3
  const scanlines = new Uint8Array(stride * p.height)
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      scanlines.set(p.rgba.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 3), y * stride + 1 + x * 3)
    }
  }
  return { width: p.width, height: p.height, scanlines }
}
