/**
 * The one reader of a GGUF file's header (format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md,
 * versions 2 and 3, little-endian), shared by the memory estimate (`gguf-metadata.ts`: the keys it
 * wants) and the model check (`models/model-header.ts`: is the whole header there). Reads go through
 * the file a chunk at a time; `pos` is the absolute offset of the next read.
 */
import type { FileHandle } from 'node:fs/promises'

/** Headers bigger than this are not read (a real one is at most a few MiB of vocabulary). */
export const MAX_HEADER_BYTES = 256 * 1024 * 1024
const CHUNK = 1024 * 1024

export const BOOL = 7
export const STRING = 8
export const ARRAY = 9

/**
 * The fixed-size value types by id (`GGUFValueType`: u8 i8 u16 i16 u32 i32 f32 bool, then u64 i64 f64
 * after string 8 and array 9): byte size and little-endian reader (bool reads as its byte).
 */
export const FIXED: Partial<Record<number, { size: number; read: (b: Buffer) => number }>> = {
  0: { size: 1, read: (b) => b.readUInt8(0) },
  1: { size: 1, read: (b) => b.readInt8(0) },
  2: { size: 2, read: (b) => b.readUInt16LE(0) },
  3: { size: 2, read: (b) => b.readInt16LE(0) },
  4: { size: 4, read: (b) => b.readUInt32LE(0) },
  5: { size: 4, read: (b) => b.readInt32LE(0) },
  6: { size: 4, read: (b) => b.readFloatLE(0) },
  [BOOL]: { size: 1, read: (b) => b.readUInt8(0) },
  10: { size: 8, read: (b) => Number(b.readBigUInt64LE(0)) },
  11: { size: 8, read: (b) => Number(b.readBigInt64LE(0)) },
  12: { size: 8, read: (b) => b.readDoubleLE(0) },
}

export type GgufValue = number | string | boolean | GgufValue[] | null

/** The file ends before the header does (a truncated file). */
export class GgufHeaderEnd extends Error {
  constructor() {
    super('GGUF header ends early (truncated file)')
  }
}

/** Sequential reads through a GGUF header of a file `size` bytes long. */
export class GgufReader {
  pos = 0
  private buf = Buffer.alloc(0)
  private bufStart = 0

  constructor(
    private readonly file: FileHandle,
    private readonly size: number,
  ) {}

  /** The next `n` bytes; throws `GgufHeaderEnd` past the file's end. */
  async bytes(n: number): Promise<Buffer> {
    if (this.pos + n > this.size) throw new GgufHeaderEnd()
    if (this.pos + n > MAX_HEADER_BYTES)
      throw new Error(`the header is implausibly large (over ${MAX_HEADER_BYTES} bytes)`)
    const at = this.pos - this.bufStart
    if (at + n > this.buf.length) {
      this.buf = Buffer.alloc(Math.max(CHUNK, n))
      const { bytesRead } = await this.file.read(this.buf, 0, this.buf.length, this.pos)
      this.buf = this.buf.subarray(0, bytesRead)
      this.bufStart = this.pos
    }
    const start = this.pos - this.bufStart
    this.pos += n
    return this.buf.subarray(start, start + n)
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0)
  }

  /** A u64; a count (`count`, the default) beyond any real header's is refused as implausible. */
  async u64(count = true): Promise<number> {
    const at = this.pos
    const n = (await this.bytes(8)).readBigUInt64LE(0)
    const limit = count ? BigInt(MAX_HEADER_BYTES) : BigInt(Number.MAX_SAFE_INTEGER)
    if (n > limit) throw new Error(`an implausible ${count ? 'count' : 'offset'} ${n} at byte ${at}`)
    return Number(n)
  }

  async string(): Promise<string> {
    return (await this.bytes(await this.u64())).toString('utf8')
  }

  /** A value of `type`, read whole (arrays item by item). */
  async value(type: number): Promise<GgufValue> {
    if (type === STRING) return this.string()
    if (type === ARRAY) {
      const itemType = await this.u32()
      const n = await this.u64()
      const items: GgufValue[] = []
      for (let i = 0; i < n; i++) items.push(await this.value(itemType))
      return items
    }
    if (type === BOOL) return (await this.bytes(1))[0] !== 0
    const fixed = fixedType(type, this.pos)
    return fixed.read(await this.bytes(fixed.size))
  }

  /** Skips a value of `type` (a fixed-size array in one step). */
  async skip(type: number): Promise<void> {
    if (type === STRING) await this.bytes(await this.u64())
    else if (type === ARRAY) {
      const itemType = await this.u32()
      const n = await this.u64()
      const size = FIXED[itemType]?.size
      if (size !== undefined) await this.bytes(size * n)
      else for (let i = 0; i < n; i++) await this.skip(itemType)
    } else await this.bytes(fixedType(type, this.pos).size)
  }
}

/** The fixed-size reader of `type`; throws for a type id the format does not define. */
function fixedType(type: number, pos: number): { size: number; read: (b: Buffer) => number } {
  const fixed = FIXED[type]
  if (fixed === undefined) throw new Error(`an unknown value type ${type} at byte ${pos - 4}`)
  return fixed
}
