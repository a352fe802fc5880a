/**
 * Reads the metadata of a GGUF file (its key/value header only, never the tensors) for the memory
 * estimate: architecture, layer count, training context, attention heads and head sizes. The header
 * is read in chunks from the start of the file; a vocabulary of 150k strings is skipped, not kept.
 * Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3, little-endian).
 */
import { open } from 'node:fs/promises'

export interface GgufFacts {
  architecture: string
  blockCount: number | null
  contextLength: number | null
  embeddingLength: number | null
  headCount: number | null
  /** Per layer when the model varies it (an array in the file), else one number. */
  headCountKv: number | number[] | null
  keyLength: number | null
  valueLength: number | null
}

/** Headers bigger than this are not read (a real one is at most a few MiB of vocabulary). */
const MAX_HEADER_BYTES = 256 * 1024 * 1024
const CHUNK = 1024 * 1024

/** The value type ids (`GGUFValueType`) that are not fixed-size numbers. */
const BOOL = 7
const STRING = 8
const ARRAY = 9

/**
 * The fixed-size value types by id (`GGUFValueType`: u8 i8 u16 i16 u32 i32 f32 bool, then u64 i64 f64
 * after string 8 and array 9): byte size and little-endian reader (bool reads as its byte).
 */
const FIXED: Partial<Record<number, { size: number; read: (b: Buffer) => number }>> = {
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

/** The fixed-size reader of `type`; throws for a type id the format does not define. */
function fixedType(type: number): { size: number; read: (b: Buffer) => number } {
  const fixed = FIXED[type]
  if (fixed === undefined) throw new Error(`GGUF header holds an unknown value type ${type}`)
  return fixed
}

type Value = number | string | boolean | Value[] | null

/** Reads the facts of `path`; rejects with a clear Error when it is not a GGUF file. */
export async function readGgufFacts(path: string): Promise<GgufFacts> {
  const kv = await readGgufMetadata(
    path,
    (key) =>
      key === 'general.architecture' ||
      /^[^.]+\.(block_count|context_length|embedding_length|attention\.(head_count|head_count_kv|key_length|value_length))$/.test(
        key,
      ),
  )
  const arch =
    typeof kv.get('general.architecture') === 'string' ? (kv.get('general.architecture') as string) : ''
  const num = (key: string) => {
    const v = kv.get(`${arch}.${key}`)
    return typeof v === 'number' ? v : null
  }
  const kvHeads = kv.get(`${arch}.attention.head_count_kv`)
  return {
    architecture: arch,
    blockCount: num('block_count'),
    contextLength: num('context_length'),
    embeddingLength: num('embedding_length'),
    headCount: num('attention.head_count'),
    headCountKv: Array.isArray(kvHeads) ? kvHeads.map(Number) : typeof kvHeads === 'number' ? kvHeads : null,
    keyLength: num('attention.key_length'),
    valueLength: num('attention.value_length'),
  }
}

/** The header's key/values for which `want(key)` is true (others are skipped). */
export async function readGgufMetadata(
  path: string,
  want: (key: string) => boolean,
): Promise<Map<string, Value>> {
  const file = await open(path, 'r')
  try {
    const r = new ChunkReader(file)
    const magic = (await r.bytes(4)).toString('latin1')
    if (magic !== 'GGUF') throw new Error(`${path} is not a GGUF file (magic "${magic}")`)
    const version = await r.u32()
    if (version < 2 || version > 3) throw new Error(`${path}: GGUF version ${version} is not supported`)
    await r.u64() // tensor count
    const count = await r.u64()
    const out = new Map<string, Value>()
    for (let i = 0; i < count; i++) {
      const key = await r.string()
      const type = await r.u32()
      if (want(key)) out.set(key, await r.value(type))
      else await r.skip(type)
    }
    return out
  } finally {
    await file.close()
  }
}

class ChunkReader {
  private buf = Buffer.alloc(0)
  private pos = 0
  private fileOffset = 0

  constructor(private readonly file: import('node:fs/promises').FileHandle) {}

  private async need(n: number): Promise<void> {
    if (this.buf.length - this.pos >= n) return
    if (this.fileOffset + n > MAX_HEADER_BYTES) throw new Error('GGUF header is implausibly large')
    const rest = this.buf.subarray(this.pos)
    const chunk = Buffer.alloc(Math.max(CHUNK, n))
    const { bytesRead } = await this.file.read(chunk, 0, chunk.length, this.fileOffset)
    this.fileOffset += bytesRead
    this.buf = Buffer.concat([rest, chunk.subarray(0, bytesRead)])
    this.pos = 0
    if (this.buf.length < n) throw new Error('GGUF header ends early (truncated file)')
  }

  async bytes(n: number): Promise<Buffer> {
    await this.need(n)
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0)
  }

  async u64(): Promise<number> {
    const n = (await this.bytes(8)).readBigUInt64LE(0)
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('GGUF header holds an implausible count')
    return Number(n)
  }

  async string(): Promise<string> {
    return (await this.bytes(await this.u64())).toString('utf8')
  }

  async value(type: number): Promise<Value> {
    switch (type) {
      case STRING:
        return this.string()
      case ARRAY: {
        const itemType = await this.u32()
        const n = await this.u64()
        const items: Value[] = []
        for (let i = 0; i < n; i++) items.push(await this.value(itemType))
        return items
      }
      case BOOL:
        return (await this.bytes(1))[0] !== 0
      default:
        return this.scalar(type)
    }
  }

  async skip(type: number): Promise<void> {
    if (type === STRING) {
      await this.bytes(await this.u64())
    } else if (type === ARRAY) {
      const itemType = await this.u32()
      const n = await this.u64()
      const size = FIXED[itemType]?.size
      if (size !== undefined) await this.bytes(size * n)
      else for (let i = 0; i < n; i++) await this.skip(itemType)
    } else {
      await this.bytes(fixedType(type).size)
    }
  }

  private async scalar(type: number): Promise<number> {
    const fixed = fixedType(type)
    return fixed.read(await this.bytes(fixed.size))
  }
}
