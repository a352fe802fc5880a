import { describe, expect, it } from 'vitest'
import { probeImage } from './image-probe'

/** A PNG header up to IHDR (and optional chunks before IDAT); the probe reads no further. */
function pngHeader(width: number, height: number, colourType: number, chunks: string[] = []): Uint8Array {
  const b = Buffer.alloc(33 + chunks.length * 12 + 12)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  b.writeUInt32BE(13, 8)
  b.write('IHDR', 12, 'latin1')
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  b[24] = 8
  b[25] = colourType
  let at = 33
  for (const type of [...chunks, 'IDAT']) {
    b.writeUInt32BE(0, at)
    b.write(type, at + 4, 'latin1')
    at += 12
  }
  return b
}

/** SOI, an APP0 segment, then a baseline SOF0 with the size. */
function jpegHeader(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x04, 0x00, 0x00]
  const sof0 = [
    0xff,
    0xc0,
    0x00,
    0x0b,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x01,
    0x01,
  ]
  return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, 0, 0, 0])
}

function riff(chunk: string, payload: number[]): Uint8Array {
  const b = Buffer.alloc(20 + payload.length)
  b.write('RIFF', 0, 'latin1')
  b.writeUInt32LE(b.length - 8, 4)
  b.write('WEBP', 8, 'latin1')
  b.write(chunk, 12, 'latin1')
  b.writeUInt32LE(payload.length, 16)
  Buffer.from(payload).copy(b, 20)
  return b
}

describe('probeImage', () => {
  it('reads a PNG’s size and whether it has alpha (RGBA, grey+alpha, tRNS)', () => {
    expect(probeImage(pngHeader(640, 480, 2))).toEqual({
      format: 'png',
      width: 640,
      height: 480,
      hasAlpha: false,
    })
    expect(probeImage(pngHeader(64, 32, 6))?.hasAlpha).toBe(true)
    expect(probeImage(pngHeader(64, 32, 4))?.hasAlpha).toBe(true)
    expect(probeImage(pngHeader(64, 32, 2, ['tRNS']))?.hasAlpha).toBe(true)
    expect(probeImage(pngHeader(64, 32, 2, ['gAMA']))?.hasAlpha).toBe(false)
  })

  it('reads a JPEG’s size from its start-of-frame segment, past the others', () => {
    expect(probeImage(jpegHeader(1920, 1080))).toEqual({
      format: 'jpeg',
      width: 1920,
      height: 1080,
      hasAlpha: false,
    })
  })

  it('reads the three kinds of WebP (lossy, lossless, extended)', () => {
    // VP8: frame tag (3), start code 9d 01 2a, 14-bit width and height
    const lossy = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x20, 0x03, 0x58, 0x02, 0, 0])
    expect(probeImage(lossy)).toEqual({ format: 'webp', width: 800, height: 600, hasAlpha: false })
    // VP8L: 0x2f, then (width-1) 14 bits, (height-1) 14 bits, alpha 1 bit
    const bits = 99 | (49 << 14) | (1 << 28)
    const lossless = riff('VP8L', [
      0x2f,
      bits & 0xff,
      (bits >> 8) & 0xff,
      (bits >> 16) & 0xff,
      bits >>> 24,
      0,
    ])
    expect(probeImage(lossless)).toEqual({ format: 'webp', width: 100, height: 50, hasAlpha: true })
    // VP8X: flags (alpha 0x10), 3 reserved, (width-1) and (height-1) as 24-bit little-endian
    const extended = riff('VP8X', [0x10, 0, 0, 0, 0xff, 0x0f, 0, 0x7f, 0x02, 0])
    expect(probeImage(extended)).toEqual({ format: 'webp', width: 4096, height: 640, hasAlpha: true })
  })

  it('knows nothing else: text, GIF, a cut header, a zero size', () => {
    expect(probeImage(Buffer.from('hello world, not an image'))).toBeUndefined()
    expect(probeImage(Buffer.from('GIF89a\x10\x00\x10\x00'))).toBeUndefined()
    expect(probeImage(pngHeader(64, 64, 2).subarray(0, 20))).toBeUndefined()
    expect(probeImage(pngHeader(0, 64, 2))).toBeUndefined()
    expect(probeImage(Uint8Array.from([0xff, 0xd8, 0xff]))).toBeUndefined()
  })
})
