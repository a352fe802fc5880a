/**
 * Reads the metadata of a GGUF file (its key/value header only, never the tensors) for the memory
 * estimate: architecture, layer count, training context, attention heads and head sizes. The header
 * is read in chunks from the start of the file; a vocabulary of 150k strings is skipped, not kept.
 * Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3, little-endian).
 */
import { open } from 'node:fs/promises'
import { GgufReader, type GgufValue } from './gguf-reader'

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

type Value = GgufValue

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
    const r = new GgufReader(file, (await file.stat()).size)
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
