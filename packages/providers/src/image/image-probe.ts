/**
 * What an uploaded image is, read from its header only (no decoding): PNG, JPEG or WebP — the formats
 * OpenAI's `/v1/images/edits` takes — with its pixel size and whether it carries transparency. The
 * content decides, never the file name or the part's content type. Bytes past the header are not
 * checked: a file that is cut or corrupt further on is ComfyUI's to refuse (an execution error).
 */

export const IMAGE_FORMATS = ['png', 'jpeg', 'webp'] as const
export type ImageFormat = (typeof IMAGE_FORMATS)[number]

export interface ImageFacts {
  format: ImageFormat
  /** Pixels. */
  width: number
  height: number
  /** An alpha channel (PNG colour type 4/6 or a `tRNS` chunk, WebP's alpha flag); never for JPEG. */
  hasAlpha: boolean
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** The image's facts, or undefined when the bytes are not a PNG, JPEG or WebP this can read. */
export function probeImage(bytes: Uint8Array): ImageFacts | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const text = (at: number, length: number) =>
    at + length <= bytes.length ? String.fromCharCode(...bytes.subarray(at, at + length)) : ''
  if (PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return probePng(bytes, view, text)
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return probeJpeg(bytes, view)
  if (text(0, 4) === 'RIFF' && text(8, 4) === 'WEBP') return probeWebp(bytes, view, text)
  return undefined
}

function sized(
  format: ImageFormat,
  width: number,
  height: number,
  hasAlpha: boolean,
): ImageFacts | undefined {
  return width > 0 && height > 0 ? { format, width, height, hasAlpha } : undefined
}

function probePng(bytes: Uint8Array, view: DataView, text: (at: number, n: number) => string) {
  if (bytes.length < 33 || text(12, 4) !== 'IHDR') return undefined
  const colourType = bytes[25]!
  let hasAlpha = colourType === 4 || colourType === 6
  // tRNS comes before the first IDAT
  for (let at = 33; !hasAlpha && at + 8 <= bytes.length; ) {
    const type = text(at + 4, 4)
    if (type === 'IDAT' || type === 'IEND') break
    if (type === 'tRNS') hasAlpha = true
    at += 12 + view.getUint32(at)
  }
  return sized('png', view.getUint32(16), view.getUint32(20), hasAlpha)
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic): C0–CF but C4, C8, CC. */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf])

function probeJpeg(bytes: Uint8Array, view: DataView) {
  let at = 2
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at++ // fill byte
      continue
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2 // no length
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return undefined // end, or scan data before any frame
    const length = view.getUint16(at + 2)
    if (SOF.has(marker)) {
      if (at + 9 > bytes.length) return undefined
      return sized('jpeg', view.getUint16(at + 7), view.getUint16(at + 5), false)
    }
    at += 2 + length
  }
  return undefined
}

function probeWebp(bytes: Uint8Array, view: DataView, text: (at: number, n: number) => string) {
  const chunk = text(12, 4)
  const u24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)
  if (chunk === 'VP8X' && bytes.length >= 30) {
    return sized('webp', u24(24) + 1, u24(27) + 1, (bytes[20]! & 0x10) !== 0)
  }
  if (chunk === 'VP8L' && bytes.length >= 25 && bytes[20] === 0x2f) {
    const bits = view.getUint32(21, true)
    return sized('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1, ((bits >>> 28) & 1) === 1)
  }
  if (
    chunk === 'VP8 ' &&
    bytes.length >= 30 &&
    bytes[23] === 0x9d &&
    bytes[24] === 0x01 &&
    bytes[25] === 0x2a
  ) {
    return sized('webp', view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff, false)
  }
  return undefined
}
