/**
 * Splits a GGUF the way llama.cpp's `llama-gguf-split --split` does, so tests can serve a real split
 * model (`<name>-00001-of-0000N.gguf`): the first shard keeps every metadata key, each shard adds
 * `split.no` (u16), `split.count` (u16) and `split.tensors.count` (i32), and the tensors are shared
 * out in order, each shard with its own aligned data section. llama-server loads the whole model
 * from the first shard when the others lie beside it. Pure.
 */

const ALIGNMENT = 32
const FIXED: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }
const STRING = 8
const ARRAY = 9

interface Tensor {
  /** The tensor's info record without its offset (name, dims, type). */
  head: Buffer
  data: Buffer
}

/** `<stem>-00001-of-00003.gguf`: llama.cpp's shard file name (`llama_split_path`). */
export function splitFileName(stem: string, index: number, count: number): string {
  const pad = (n: number) => String(n).padStart(5, '0')
  return `${stem}-${pad(index + 1)}-of-${pad(count)}.gguf`
}

/** Splits the GGUF `bytes` into `count` shards (at least one tensor each). Throws on a file it cannot read. */
export function splitGguf(bytes: Buffer, count: number): Buffer[] {
  if (bytes.toString('latin1', 0, 4) !== 'GGUF') throw new Error('not a GGUF file')
  let at = 8
  const u32 = () => {
    const v = bytes.readUInt32LE(at)
    at += 4
    return v
  }
  const u64 = () => {
    const v = Number(bytes.readBigUInt64LE(at))
    at += 8
    return v
  }
  const skipValue = (type: number): void => {
    if (type === STRING) {
      const n = u64() // read first: `at += u64()` would add to the old `at`
      at += n
    } else if (type === ARRAY) {
      const inner = u32()
      const n = u64()
      for (let i = 0; i < n; i++) skipValue(inner)
    } else {
      const size = FIXED[type]
      if (size === undefined) throw new Error(`unknown GGUF value type ${type}`)
      at += size
    }
  }
  const nTensors = u64()
  const nKv = u64()
  const kvStart = at
  for (let i = 0; i < nKv; i++) {
    const keyLength = u64()
    at += keyLength
    skipValue(u32())
  }
  const kv = bytes.subarray(kvStart, at)
  const infos: { head: Buffer; offset: number }[] = []
  for (let i = 0; i < nTensors; i++) {
    const start = at
    const nameLength = u64()
    at += nameLength
    const dims = u32()
    at += 8 * dims + 4 // dims, type
    const head = bytes.subarray(start, at)
    infos.push({ head, offset: u64() })
  }
  const dataStart = Math.ceil(at / ALIGNMENT) * ALIGNMENT
  const tensors: Tensor[] = infos.map((t, i) => ({
    head: t.head,
    data: bytes.subarray(
      dataStart + t.offset,
      dataStart + (infos[i + 1]?.offset ?? bytes.length - dataStart),
    ),
  }))
  if (count < 1 || count > tensors.length)
    throw new Error(`cannot split ${tensors.length} tensors in ${count}`)
  const per = Math.ceil(tensors.length / count)
  return Array.from({ length: count }, (_, i) =>
    shard(
      i === 0 ? { bytes: kv, n: nKv } : { bytes: Buffer.alloc(0), n: 0 },
      tensors.slice(i * per, (i + 1) * per),
      {
        no: i,
        count,
        tensors: tensors.length,
      },
    ),
  )
}

function shard(
  kv: { bytes: Buffer; n: number },
  tensors: Tensor[],
  split: { no: number; count: number; tensors: number },
): Buffer {
  const parts: Buffer[] = []
  const header = Buffer.alloc(24)
  header.write('GGUF', 0, 'latin1')
  header.writeUInt32LE(3, 4)
  header.writeBigUInt64LE(BigInt(tensors.length), 8)
  header.writeBigUInt64LE(BigInt(kv.n + 3), 16)
  parts.push(header, kv.bytes)
  parts.push(kvNumber('split.no', 2, split.no), kvNumber('split.count', 2, split.count))
  parts.push(kvNumber('split.tensors.count', 5, split.tensors))
  let offset = 0
  const data: Buffer[] = []
  for (const t of tensors) {
    const off = Buffer.alloc(8)
    off.writeBigUInt64LE(BigInt(offset))
    parts.push(t.head, off)
    const padded = Math.ceil(t.data.length / ALIGNMENT) * ALIGNMENT
    data.push(t.data, Buffer.alloc(padded - t.data.length))
    offset += padded
  }
  const length = parts.reduce((a, p) => a + p.length, 0)
  parts.push(Buffer.alloc(Math.ceil(length / ALIGNMENT) * ALIGNMENT - length), ...data)
  return Buffer.concat(parts)
}

/** One KV of type u16 (2) or i32 (5). */
function kvNumber(key: string, type: 2 | 5, value: number): Buffer {
  const name = Buffer.from(key, 'utf8')
  const out = Buffer.alloc(8 + name.length + 4 + (type === 2 ? 2 : 4))
  out.writeBigUInt64LE(BigInt(name.length), 0)
  name.copy(out, 8)
  out.writeUInt32LE(type, 8 + name.length)
  if (type === 2) out.writeUInt16LE(value, 12 + name.length)
  else out.writeInt32LE(value, 12 + name.length)
  return out
}
