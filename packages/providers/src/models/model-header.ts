/**
 * Is this file a model? The first bytes of a file, judged before svc registers it (a local path) or
 * keeps it (a download), so that a text file, an image or a truncated download never becomes a ref
 * that an engine then dies on.
 *
 * - `gguf` (llm models, projectors): magic `GGUF`, version 2 or 3, and the whole header parses —
 *   every key/value and tensor description — with the tensor data it describes inside the file.
 * - `whisper` (whisper.cpp's `ggml-*.bin`): the ggml magic (`lmgg` on disk), or GGUF as above.
 * - `checkpoint` (image models): `.safetensors` is an 8-byte little-endian length and that much JSON;
 *   `.ckpt` is a zip (PyTorch's format) or a pickle.
 * - Any other format is the provider's business (nothing is checked).
 *
 * A refusal names what the file is instead (`describeFile`): "a text file", "a PNG image", "a
 * truncated GGUF: header ends at byte 100". The GGUF walk uses svc's header reader (`gguf-reader.ts`,
 * shared with the memory estimate): @huggingface/gguf's reader, tried first, reads a truncated local
 * file as if it were whole, and does not export its table of type sizes.
 */
import { type FileHandle, open } from 'node:fs/promises'
import { type ModelEntry, SvcError } from '@svc/core'
import { GgufHeaderEnd, GgufReader, MAX_HEADER_BYTES } from '../memory/gguf-reader'

/**
 * ggml's tensor types by id: `[elements per block, bytes per block]` (ggml.c's `type_traits`). A type
 * not here (newer than this table) is not counted in the data-size check.
 */
// biome-ignore format: a table
const TENSOR_TYPES: Readonly<Record<number, readonly [number, number]>> = {
  0: [1, 4], 1: [1, 2], 2: [32, 18], 3: [32, 20], 6: [32, 22], 7: [32, 24], 8: [32, 34], 9: [32, 40],
  10: [256, 84], 11: [256, 110], 12: [256, 144], 13: [256, 176], 14: [256, 210], 15: [256, 292],
  16: [256, 66], 17: [256, 74], 18: [256, 98], 19: [256, 50], 20: [32, 18], 21: [256, 110],
  22: [256, 82], 23: [256, 136], 24: [1, 1], 25: [1, 2], 26: [1, 4], 27: [1, 8], 28: [1, 8],
  29: [256, 56], 30: [1, 2], 34: [256, 54], 35: [256, 66], 39: [32, 17],
}

/**
 * What is wrong with `path` as a model of `format` (the ref's `format`: `gguf`, `whisper`,
 * `checkpoint`), or undefined when it looks like one. Reads only the header; never throws for a bad
 * file (a file that cannot be opened rejects).
 */
export async function modelFileProblem(path: string, format: string): Promise<string | undefined> {
  const file = await open(path, 'r')
  try {
    const size = (await file.stat()).size
    const head = Buffer.alloc(Math.min(size, 4096))
    await file.read(head, 0, head.length, 0)
    if (format === 'gguf') return isGguf(head) ? ggufProblem(file, size) : notA('GGUF model', head, size)
    if (format === 'whisper') {
      if (head.subarray(0, 4).toString('latin1') === 'lmgg') return undefined
      return isGguf(head) ? ggufProblem(file, size) : notA('whisper model (ggml or GGUF)', head, size)
    }
    if (format === 'checkpoint') return checkpointProblem(file, head, size, path)
    return undefined
  } finally {
    await file.close()
  }
}

/**
 * Throws 400 `request.invalid` naming what `path` is when it is not a model of `format`; `what` says
 * where it came from (`the file <path>`, `the projector <path>`), `param` the request field named.
 */
export async function refuseNonModel(
  path: string,
  format: string,
  what: string,
  param = 'model',
): Promise<void> {
  const problem = await modelFileProblem(path, format)
  if (problem !== undefined)
    throw new SvcError('request.invalid', `${what} is not a model svc can load: ${problem}`, { param })
}

/**
 * Refuses a finished download that is not a model (an HTML login page, a cut file) with 400
 * `request.invalid`, after `discard` deleted what was downloaded, ref and all (a failure of `discard`
 * does not hide the refusal). Checks the weights (by the ref's format) and the projector (GGUF).
 */
export async function refuseNonModelDownload(
  entry: ModelEntry,
  pulled: ModelEntry,
  discard: () => Promise<unknown>,
): Promise<void> {
  const files: [string | undefined, string][] = [
    [pulled.path, entry.format],
    [pulled.mmproj?.path, 'gguf'],
  ]
  for (const [path, format] of files) {
    const problem = path === undefined ? undefined : await modelFileProblem(path, format)
    if (problem === undefined) continue
    const from = entry.url ?? pulled.mmproj?.url ?? entry.id
    await discard().catch(() => undefined)
    throw new SvcError(
      'request.invalid',
      `the download of "${entry.id}" (${from}) is not a model svc can load: ${problem}; it was deleted`,
      { param: 'model' },
    )
  }
}

/** What a file that is not a `wanted` seems to be, from its first bytes. */
export function describeFile(head: Buffer, size: number): string {
  if (size === 0) return 'an empty file'
  const ascii = head.subarray(0, 8).toString('latin1')
  if (isGguf(head)) return 'a GGUF model'
  if (ascii.startsWith('\x89PNG')) return 'a PNG image'
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'a JPEG image'
  if (ascii.startsWith('GIF8')) return 'a GIF image'
  if (ascii.startsWith('%PDF')) return 'a PDF document'
  if (ascii.startsWith('PK\x03\x04')) return 'a zip archive'
  if (head[0] === 0x1f && head[1] === 0x8b) return 'a gzip archive'
  if (ascii.startsWith('lmgg')) return 'a whisper ggml model'
  const text = head.toString('utf8')
  if (/^\s*<(!doctype html|html)/i.test(text)) return 'an HTML page'
  // Text: valid UTF-8 (a cut multi-byte character at the end aside), no control characters but white space.
  if (!head.some(isControl) && !text.slice(0, -3).includes('\ufffd')) return 'a text file'
  return `a file of unknown format (it starts with ${[...head.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')})`
}

/** A control character that text does not hold (tab, line feed, vertical tab, form feed, return are fine). */
function isControl(byte: number): boolean {
  return byte < 9 || (byte > 13 && byte < 32) || byte === 127
}

function notA(wanted: string, head: Buffer, size: number): string {
  return `expected a ${wanted}, found ${describeFile(head, size)}`
}

function isGguf(head: Buffer): boolean {
  return head.subarray(0, 4).toString('latin1') === 'GGUF'
}

async function checkpointProblem(
  file: FileHandle,
  head: Buffer,
  size: number,
  path: string,
): Promise<string | undefined> {
  if (/\.ckpt$/i.test(path)) {
    // PyTorch's zip format, or a pickle (protocol 2 or later) from before it.
    if (head.subarray(0, 4).toString('latin1') === 'PK\x03\x04') return undefined
    if (head[0] === 0x80 && (head[1] ?? 0) >= 2 && (head[1] ?? 0) <= 5) return undefined
    return notA('PyTorch checkpoint (zip or pickle)', head, size)
  }
  if (size < 10) return notA('safetensors file', head, size)
  const length = Number(head.readBigUInt64LE(0))
  if (length < 2 || length > MAX_HEADER_BYTES || 8 + length > size) {
    return head[8] === 0x7b && head[9] === 0x22
      ? `a truncated safetensors file: its header ends at byte ${8 + length}, the file at byte ${size}`
      : notA('safetensors file', head, size)
  }
  const json = Buffer.alloc(length)
  await file.read(json, 0, length, 8)
  try {
    const parsed: unknown = JSON.parse(json.toString('utf8'))
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return undefined
  } catch {}
  return notA('safetensors file', head, size)
}

/** A GGUF's version, header and tensor data, walked; undefined when all of it is there. */
async function ggufProblem(file: FileHandle, size: number): Promise<string | undefined> {
  const r = new GgufReader(file, size)
  try {
    await r.bytes(4)
    const version = await r.u32()
    if (version < 2 || version > 3)
      return `GGUF version ${version} is not supported (svc reads versions 2 and 3)`
    const tensors = await r.u64()
    const keys = await r.u64()
    let alignment = 32
    for (let i = 0; i < keys; i++) {
      const key = await r.string()
      const type = await r.u32()
      if (key === 'general.alignment' && type === 4) alignment = (await r.bytes(4)).readUInt32LE(0) || 32
      else await r.skip(type)
    }
    let dataEnd = 0
    for (let i = 0; i < tensors; i++) {
      await r.string()
      const dims = await r.u32()
      let elements = 1
      for (let d = 0; d < dims; d++) elements *= await r.u64(false)
      const type = await r.u32()
      const offset = await r.u64(false)
      const traits = TENSOR_TYPES[type]
      if (traits) dataEnd = Math.max(dataEnd, offset + Math.ceil(elements / traits[0]) * traits[1])
    }
    const dataStart = Math.ceil(r.pos / alignment) * alignment
    if (tensors > 0 && dataStart + dataEnd > size)
      return `a truncated GGUF: its tensor data ends at byte ${dataStart + dataEnd}, the file at byte ${size}`
    return undefined
  } catch (error) {
    if (error instanceof GgufHeaderEnd) return `a truncated GGUF: header ends at byte ${size}`
    return `a GGUF whose header does not parse: ${(error as Error).message}`
  }
}
