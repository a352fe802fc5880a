/**
 * A GGUF of an exact size whose one tensor (type I8, one dimension) is random bytes: for pull, resume,
 * checksum and disk-space tests that need a file of a given size and nothing an engine could run,
 * but that svc must take for a model (its header check reads the header and the tensor data's
 * extent, never the data).
 */
import { randomBytes } from 'node:crypto'

const HEADER = 64
const I8 = 24

/** `size` bytes (at least 64): a 64-byte header, then `size - 64` random bytes of tensor data. */
export function fillerGguf(size: number): Buffer {
  if (!Number.isSafeInteger(size) || size < HEADER)
    throw new Error(`a filler GGUF has at least ${HEADER} bytes`)
  const head = Buffer.alloc(HEADER)
  let at = head.write('GGUF', 0, 'latin1')
  at = head.writeUInt32LE(3, at)
  at = head.writeBigUInt64LE(1n, at) // tensors
  at = head.writeBigUInt64LE(0n, at) // key/values
  at = head.writeBigUInt64LE(6n, at)
  at += head.write('filler', at, 'latin1')
  at = head.writeUInt32LE(1, at) // dimensions
  at = head.writeBigUInt64LE(BigInt(size - HEADER), at)
  at = head.writeUInt32LE(I8, at)
  head.writeBigUInt64LE(0n, at) // offset; 62 bytes so far, padded to the alignment (32)
  return Buffer.concat([head, randomBytes(size - HEADER)])
}
