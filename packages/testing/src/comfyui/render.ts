/**
 * What the stand-in "generates": a picture that is a pure function of (seed, batch index, size) — a
 * two-colour gradient with 8×8 blocks of noise — so tests can tell seeds apart and get the same bytes
 * for the same seed. Seeds are full 64-bit (`bigint`); splitmix64 spreads them over the parameters.
 */
import type { PngImage } from './png'

const MASK64 = (1n << 64n) - 1n

/** splitmix64: the next state and a well-mixed 64-bit output. */
function splitmix64(state: bigint): [bigint, bigint] {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK64
  let z = next
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64
  return [next, z ^ (z >> 31n)]
}

/** Eight 32-bit words derived from the seed and the image's place in its batch. */
function words(seed: bigint, index: number): number[] {
  let state = (seed ^ (BigInt(index) * 0xd1b54a32d192ed03n)) & MASK64
  const out: number[] = []
  for (let i = 0; i < 4; i++) {
    const [next, z] = splitmix64(state)
    state = next
    out.push(Number(z & 0xffffffffn), Number(z >> 32n))
  }
  return out
}

/** A 32-bit integer hash (lowbias32) of a block position mixed with a key. */
function hash(x: number, y: number, key: number): number {
  let h = (Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ key) >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}

/** Renders image `index` of a batch generated with `seed`, as PNG scanlines. */
export function renderImage(seed: bigint, index: number, width: number, height: number): PngImage {
  const w = words(seed & MASK64, index)
  const from = [w[0]! & 0xff, (w[0]! >>> 8) & 0xff, (w[0]! >>> 16) & 0xff]
  const to = [w[1]! & 0xff, (w[1]! >>> 8) & 0xff, (w[1]! >>> 16) & 0xff]
  const angle = ((w[2]! >>> 0) / 0x100000000) * 2 * Math.PI
  const dx = Math.cos(angle)
  const dy = Math.sin(angle)
  const span = Math.abs(dx) * width + Math.abs(dy) * height || 1
  const x0 = dx < 0 ? width : 0
  const y0 = dy < 0 ? height : 0
  const key = w[3]!
  const stride = 1 + width * 3
  const scanlines = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    let p = y * stride + 1 // byte 0 of the row is the filter type (0 = none)
    for (let x = 0; x < width; x++) {
      const t = ((x - x0) * dx + (y - y0) * dy) / span
      const noise = (hash(x >> 3, y >> 3, key) & 0x3f) - 32
      for (let c = 0; c < 3; c++) {
        const v = from[c]! + (to[c]! - from[c]!) * t + noise
        scanlines[p++] = Math.max(0, Math.min(255, v))
      }
    }
  }
  return { width, height, scanlines }
}
