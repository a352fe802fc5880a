/**
 * What a load is expected to take in memory, before it starts:
 *
 * - a GGUF on disk: the file (the weights) plus the KV cache, from the file's metadata and the
 *   context the slot runs with (`ctx_size`, a `-c` in `args`, else the model's training context,
 *   which is llama-server's default): layers × context × KV heads × (key + value length) × 2 bytes
 *   (an f16 cache, llama.cpp's default);
 * - any other file on disk (an image checkpoint, a whisper model): its size;
 * - not on disk yet: the catalogue's size;
 * - plus a vision model's projector (`--mmproj`), which llama-server holds beside the weights: its
 *   file size on disk, else the catalogue's figure for it.
 *
 * The catalogue's `min_vram_gb`, where an entry has one, is a floor: what the publisher says the model
 * needs at its native size beats a smaller reckoning. Compute buffers and the engine's own code are
 * not counted; once loaded, the real use is measured and the budget counts whichever is larger.
 */
import { stat } from 'node:fs/promises'
import { formatBytes, type ModelEntry } from '@svc/core'
import { type GgufFacts, readGgufFacts } from './gguf-metadata'

export interface LoadEstimate {
  bytes: number
  /** How it was reckoned, for people. */
  detail: string
}

export interface EstimateInput {
  model: ModelEntry
  /** The slot's `ctx_size`. */
  ctxSize?: number
  /** The slot's extra arguments (a `-c` there wins, as it does for llama-server). */
  args?: readonly string[]
}

const GiB = 1024 ** 3
/** llama.cpp's default KV cache type is f16. */
const KV_BYTES_PER_VALUE = 2

export async function estimateLoad(input: EstimateInput): Promise<LoadEstimate> {
  const { model } = input
  const floor = model.minVramGb !== undefined ? model.minVramGb * GiB : 0
  const computed = await fromFile(input).catch(() => undefined)
  const main =
    computed ??
    (model.size !== undefined
      ? { bytes: model.size, detail: `${formatBytes(model.size)} download (not on disk yet)` }
      : { bytes: 0, detail: 'size unknown' })
  const projector = await projectorBytes(model)
  const reckoned =
    projector === undefined
      ? main
      : { bytes: main.bytes + projector, detail: `${main.detail} + projector ${formatBytes(projector)}` }
  if (floor > reckoned.bytes) return { bytes: floor, detail: `catalogue: at least ${model.minVramGb} GiB` }
  return reckoned
}

/** The projector's bytes: its file on disk, else the catalogue's size; undefined without one. */
async function projectorBytes(model: ModelEntry): Promise<number | undefined> {
  const mmproj = model.mmproj
  if (!mmproj) return undefined
  const onDisk = mmproj.path ? await stat(mmproj.path).catch(() => undefined) : undefined
  return onDisk?.size ?? mmproj.size
}

async function fromFile(input: EstimateInput): Promise<LoadEstimate | undefined> {
  const path = input.model.path
  if (!path) return undefined
  // A split GGUF's weights are all its shards (the first is `path`, the others lie beside it).
  const size = (await stat(path)).size + (input.model.parts ?? []).reduce((sum, p) => sum + (p.size ?? 0), 0)
  if (input.model.format !== 'gguf') {
    const what = input.model.format === 'checkpoint' ? 'checkpoint' : 'model file'
    return { bytes: size, detail: `${what} ${formatBytes(size)}` }
  }
  const facts = await readGgufFacts(path)
  const ctx = contextSize(input, facts)
  const kv = ctx === null ? 0 : kvCacheBytes(facts, ctx)
  if (!kv) return { bytes: size, detail: `weights ${formatBytes(size)} (no KV cache size in the metadata)` }
  return {
    bytes: size + kv,
    detail: `weights ${formatBytes(size)} + KV cache ${formatBytes(kv)} (ctx ${ctx})`,
  }
}

/** The context llama-server will run with: `-c` in args, then `ctx_size`, then the model's own. */
export function contextSize(
  input: Pick<EstimateInput, 'ctxSize' | 'args'>,
  facts: Pick<GgufFacts, 'contextLength'>,
): number | null {
  const args = input.args ?? []
  for (let i = args.length - 2; i >= 0; i--) {
    if (args[i] === '-c' || args[i] === '--ctx-size') {
      const n = Number(args[i + 1])
      if (Number.isInteger(n) && n > 0) return n
    }
  }
  if (input.ctxSize && input.ctxSize > 0) return input.ctxSize
  return facts.contextLength
}

/** Bytes of an f16 KV cache for `ctx` tokens; 0 when the metadata lacks what it takes. */
export function kvCacheBytes(facts: GgufFacts, ctx: number): number {
  const layers = facts.blockCount
  const heads = facts.headCount
  if (!layers || !heads || !facts.embeddingLength) return 0
  const headDim = facts.embeddingLength / heads
  const k = facts.keyLength ?? headDim
  const v = facts.valueLength ?? headDim
  let kvHeads = 0
  for (let layer = 0; layer < layers; layer++) {
    const n = Array.isArray(facts.headCountKv) ? facts.headCountKv[layer] : facts.headCountKv
    kvHeads += n ?? heads
  }
  return Math.round(ctx * kvHeads * (k + v) * KV_BYTES_PER_VALUE)
}
