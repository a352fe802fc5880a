/**
 * A minimal GGUF v3 encoder: header, typed key/value metadata, tensor infos and aligned tensor data,
 * little-endian, as `ggml/src/gguf.cpp` reads it. Only the value and tensor types the tiny test models
 * need are supported.
 */

/** GGUF value type ids (`gguf-py/gguf/constants.py` `GGUFValueType`). */
const VALUE_TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const

/** ggml tensor type ids (`GGMLQuantizationType`): only the unquantised ones. */
const TENSOR_TYPE = { f32: 0, f16: 1 } as const
export type GgufTensorType = keyof typeof TENSOR_TYPE

export const GGUF_MAGIC = 'GGUF'
export const GGUF_VERSION = 3
export const GGUF_ALIGNMENT = 32

/** One metadata value. The loader checks types strictly, so the type is explicit, never inferred. */
export type GgufValue =
  | { type: 'u32' | 'i32' | 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'i32[]'; value: readonly number[] }
  | { type: 'f32[]'; value: readonly number[] }

export const gguf = {
  u32: (value: number): GgufValue => ({ type: 'u32', value }),
  i32: (value: number): GgufValue => ({ type: 'i32', value }),
  f32: (value: number): GgufValue => ({ type: 'f32', value }),
  bool: (value: boolean): GgufValue => ({ type: 'bool', value }),
  str: (value: string): GgufValue => ({ type: 'string', value }),
  strings: (value: readonly string[]): GgufValue => ({ type: 'string[]', value }),
  i32s: (value: readonly number[]): GgufValue => ({ type: 'i32[]', value }),
  f32s: (value: readonly number[]): GgufValue => ({ type: 'f32[]', value }),
}

/** A tensor to write. `dims` are ggml `ne` order: the fastest-moving dimension first. */
export interface GgufTensor {
  name: string
  dims: readonly number[]
  type: GgufTensorType
  data: Float32Array
}

/** Appends little-endian fields to a growing list of buffers. */
class ByteSink {
  readonly parts: Buffer[] = []
  length = 0

  push(buf: Buffer): void {
    this.parts.push(buf)
    this.length += buf.length
  }
  /** Writes one fixed-size little-endian field through `write`. */
  private fixed(size: number, write: (buf: Buffer) => void): void {
    const b = Buffer.allocUnsafe(size)
    write(b)
    this.push(b)
  }
  u32(n: number): void {
    this.fixed(4, (b) => b.writeUInt32LE(n))
  }
  i32(n: number): void {
    this.fixed(4, (b) => b.writeInt32LE(n))
  }
  u64(n: number): void {
    this.fixed(8, (b) => b.writeBigUInt64LE(BigInt(n)))
  }
  f32(n: number): void {
    this.fixed(4, (b) => b.writeFloatLE(n))
  }
  str(s: string): void {
    const bytes = Buffer.from(s, 'utf8')
    this.u64(bytes.length)
    this.push(bytes)
  }
  /** An array value: the element type id, the count, then each element as `writeOne` writes it. */
  array<T>(elementType: number, values: readonly T[], writeOne: (v: T) => void): void {
    this.u32(VALUE_TYPE.array)
    this.u32(elementType)
    this.u64(values.length)
    for (const v of values) writeOne(v)
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment
    if (pad > 0) this.push(Buffer.alloc(pad))
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case 'u32':
    case 'i32':
    case 'f32':
      sink.u32(VALUE_TYPE[v.type])
      sink[v.type](v.value)
      break
    case 'bool':
      sink.u32(VALUE_TYPE.bool)
      sink.push(Buffer.from([v.value ? 1 : 0]))
      break
    case 'string':
      sink.u32(VALUE_TYPE.string)
      sink.str(v.value)
      break
    case 'string[]':
      sink.array(VALUE_TYPE.string, v.value, (s) => sink.str(s))
      break
    case 'i32[]':
      sink.array(VALUE_TYPE.i32, v.value, (n) => sink.i32(n))
      break
    case 'f32[]':
      sink.array(VALUE_TYPE.f32, v.value, (n) => sink.f32(n))
      break
  }
}

/** IEEE 754 binary16 from a float, round-to-nearest-even (Node 20 has no Float16Array). */
export function toHalf(value: number): number {
  const f32 = new Float32Array([value])
  const x = new Uint32Array(f32.buffer)[0]!
  const sign = (x >>> 16) & 0x8000
  const exp = (x >>> 23) & 0xff
  let mant = x & 0x7fffff
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0)
  const e = exp - 127 + 15
  if (e >= 0x1f) return sign | 0x7c00
  if (e <= 0) {
    if (e < -10) return sign
    mant |= 0x800000
    const shift = 14 - e
    const half = mant >>> shift
    const rest = mant & ((1 << shift) - 1)
    const mid = 1 << (shift - 1)
    return sign | (half + (rest > mid || (rest === mid && half & 1) ? 1 : 0))
  }
  const half = (e << 10) | (mant >>> 13)
  const rest = mant & 0x1fff
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0))
}

function tensorBytes(t: GgufTensor): Buffer {
  if (t.type === 'f32') return Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)
  const out = Buffer.allocUnsafe(t.data.length * 2)
  for (let i = 0; i < t.data.length; i++) out.writeUInt16LE(toHalf(t.data[i]!), i * 2)
  return out
}

/**
 * Encodes a complete GGUF v3 file. Keys are written in insertion order; tensors are laid out in the
 * given order, each at an offset aligned to {@link GGUF_ALIGNMENT} (ggml rejects any other layout).
 * Throws when a tensor's data length does not match its dims.
 */
export function encodeGguf(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const head = new ByteSink()
  head.push(Buffer.from(GGUF_MAGIC, 'latin1'))
  head.u32(GGUF_VERSION)
  head.u64(tensors.length)
  head.u64(metadata.size)
  for (const [key, value] of metadata) {
    head.str(key)
    writeValue(head, value)
  }

  const blobs = tensors.map((t) => {
    const n = t.dims.reduce((a, b) => a * b, 1)
    if (n !== t.data.length)
      throw new Error(`tensor ${t.name}: dims give ${n} elements, data has ${t.data.length}`)
    return tensorBytes(t)
  })
  let offset = 0
  tensors.forEach((t, i) => {
    head.str(t.name)
    head.u32(t.dims.length)
    for (const d of t.dims) head.u64(d)
    head.u32(TENSOR_TYPE[t.type])
    head.u64(offset)
    offset += Math.ceil(blobs[i]!.length / GGUF_ALIGNMENT) * GGUF_ALIGNMENT
  })
  head.padTo(GGUF_ALIGNMENT)

  for (const blob of blobs) {
    head.push(blob)
    head.padTo(GGUF_ALIGNMENT)
  }
  return Buffer.concat(head.parts, head.length)
}
