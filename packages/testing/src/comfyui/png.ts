/**
 * A minimal PNG codec over node:zlib: 8-bit RGB (or RGBA), no interlace, filter 0 — what ComfyUI's
 * SaveImage writes (`Image.fromarray(uint8 HxWx3)`), with its `tEXt` metadata chunks — a header
 * reader that tests use to check what they got back, and a pixel decoder (`decodePng`) for the
 * uploads that LoadImage / LoadImageMask read.
 */
import { deflateSync, inflateSync } from 'node:zlib'

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 (ISO 3309, as PNG uses it) of `bytes`. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  out.set(data, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

export interface PngImage {
  width: number
  height: number
  /**
   * Scanlines, each `1 + width * channels` bytes: a filter byte (0) then RGB triplets (RGBA quads
   * when `channels` is 4). Row-major, top first. (`renderImage` writes this layout directly, so
   * encoding needs no extra copy.)
   */
  scanlines: Uint8Array
  /** 3 (RGB, the default) or 4 (RGBA). */
  channels?: 3 | 4
}

export interface EncodePngOptions {
  /** Text chunks (`tEXt` when Latin-1, `iTXt` otherwise), e.g. ComfyUI's `prompt`. */
  text?: Record<string, string>
  /** zlib level; ComfyUI's SaveImage uses 4, PreviewImage 1. */
  compressLevel?: number
}

/** Encodes an RGB (or RGBA) image as PNG bytes. */
export function encodePng(image: PngImage, options: EncodePngOptions = {}): Buffer {
  const { width, height, scanlines } = image
  const channels = image.channels ?? 3
  if (scanlines.length !== height * (1 + width * channels))
    throw new Error('encodePng: scanlines have the wrong size')
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = channels === 4 ? 6 : 2 // colour type: RGBA or RGB
  // compression 0, filter 0, interlace 0
  const parts = [SIGNATURE, chunk('IHDR', ihdr)]
  for (const [key, value] of Object.entries(options.text ?? {})) {
    if (/^[\x20-\xff]*$/.test(value)) {
      parts.push(chunk('tEXt', Buffer.from(`${key}\0${value}`, 'latin1')))
    } else {
      // keyword \0, compression flag 0, method 0, empty language tag \0, empty translated keyword \0
      parts.push(
        chunk('iTXt', Buffer.concat([Buffer.from(`${key}\0\0\0\0\0`, 'latin1'), Buffer.from(value)])),
      )
    }
  }
  parts.push(chunk('IDAT', deflateSync(scanlines, { level: options.compressLevel ?? 4 })))
  parts.push(chunk('IEND', new Uint8Array(0)))
  return Buffer.concat(parts)
}

/**
 * A `width × height` PNG of one colour `rgb`; with `alpha`, RGBA whose alpha at each pixel is
 * `alpha(x, y)` (an OpenAI edit mask: 0 where to edit). For tests that upload pictures.
 */
export function paintPng(
  width: number,
  height: number,
  rgb: readonly number[],
  alpha?: (x: number, y: number) => number,
): Buffer {
  const channels = alpha ? 4 : 3
  const stride = 1 + width * channels
  const scanlines = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * stride + 1 + x * channels
      scanlines.set(rgb, at)
      if (alpha) scanlines[at + 3] = alpha(x, y)
    }
  }
  return encodePng({ width, height, scanlines, channels })
}

export interface PngInfo {
  width: number
  height: number
  bitDepth: number
  /** 2 = RGB, 6 = RGBA, 0 = grey … */
  colorType: number
  /** `tEXt` / uncompressed `iTXt` chunks. */
  text: Record<string, string>
}

/**
 * Reads a PNG's header and text chunks, checking the signature and every chunk's CRC. Throws on
 * anything that is not a well-formed PNG up to IEND.
 */
export function readPngInfo(bytes: Uint8Array): PngInfo {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (buf.length < 8 || !buf.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG (bad signature)')
  let offset = 8
  let info: PngInfo | undefined
  while (offset + 12 <= buf.length) {
    const length = buf.readUInt32BE(offset)
    const type = buf.toString('latin1', offset + 4, offset + 8)
    const end = offset + 8 + length
    if (end + 4 > buf.length) throw new Error(`PNG chunk ${type} runs past the end`)
    if (crc32(buf.subarray(offset + 4, end)) !== buf.readUInt32BE(end))
      throw new Error(`PNG chunk ${type}: bad CRC`)
    const data = buf.subarray(offset + 8, end)
    if (type === 'IHDR') {
      info = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth: data[8]!,
        colorType: data[9]!,
        text: {},
      }
    } else if (!info) {
      throw new Error('PNG does not start with IHDR')
    } else if (type === 'tEXt') {
      const zero = data.indexOf(0)
      info.text[data.toString('latin1', 0, zero)] = data.toString('latin1', zero + 1)
    } else if (type === 'iTXt') {
      const zero = data.indexOf(0)
      let p = zero + 3 // flag, method
      p = data.indexOf(0, p) + 1 // language tag
      p = data.indexOf(0, p) + 1 // translated keyword
      if (data[zero + 1] === 0) info.text[data.toString('latin1', 0, zero)] = data.toString('utf8', p)
    } else if (type === 'IEND') {
      return info
    }
    offset = end + 4
  }
  throw new Error('PNG has no IEND')
}

/** Pixels of a decoded PNG: `width * height * 4` bytes, RGBA, row-major, top first. */
export interface RgbaPixels {
  width: number
  height: number
  rgba: Uint8Array
  /** Whether the file has an alpha channel (colour types 4 and 6, or a `tRNS` chunk). */
  hasAlpha: boolean
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 }

/**
 * Decodes an 8-bit, non-interlaced grey, grey+alpha, RGB or RGBA PNG (every filter type) to RGBA.
 * Throws on other PNGs (palette, 16-bit, interlaced): the stand-in has no need for them.
 */
export function decodePng(bytes: Uint8Array): RgbaPixels {
  const info = readPngInfo(bytes)
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const channels = CHANNELS[info.colorType]
  if (info.bitDepth !== 8 || channels === undefined || buf[8 + 8 + 12] !== 0) {
    throw new Error(
      `decodePng: only 8-bit non-interlaced grey/RGB(A) PNGs (got colour type ${info.colorType})`,
    )
  }
  const idat: Buffer[] = []
  let hasAlpha = channels === 2 || channels === 4
  for (let offset = 8; offset + 12 <= buf.length; ) {
    const length = buf.readUInt32BE(offset)
    const type = buf.toString('latin1', offset + 4, offset + 8)
    if (type === 'IDAT') idat.push(buf.subarray(offset + 8, offset + 8 + length))
    if (type === 'tRNS') hasAlpha = true
    offset += 12 + length
  }
  const { width, height } = info
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const rows = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    const out = rows.subarray(y * stride, (y + 1) * stride)
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : undefined
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels]! : 0
      const b = up ? up[i]! : 0
      const c = up && i >= channels ? up[i - channels]! : 0
      const x = line[i]!
      let v = x
      if (filter === 1) v = x + a
      else if (filter === 2) v = x + b
      else if (filter === 3) v = x + ((a + b) >> 1)
      else if (filter === 4) {
        const p = a + b - c
        const pa = Math.abs(p - a)
        const pb = Math.abs(p - b)
        const pc = Math.abs(p - c)
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
      }
      out[i] = v & 0xff
    }
  }
  const rgba = new Uint8Array(width * height * 4)
  for (let p = 0; p < width * height; p++) {
    const s = p * channels
    const grey = channels <= 2
    rgba[p * 4] = rows[s]!
    rgba[p * 4 + 1] = grey ? rows[s]! : rows[s + 1]!
    rgba[p * 4 + 2] = grey ? rows[s]! : rows[s + 2]!
    rgba[p * 4 + 3] = channels === 2 ? rows[s + 1]! : channels === 4 ? rows[s + 3]! : 255
  }
  return { width, height, rgba, hasAlpha }
}
