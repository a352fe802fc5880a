/**
 * Two quants of one tiny chat model, as a Hub stand-in repo's files: a Q4_K_M that fits a memory
 * budget and an F32 (a wider, deeper model, about 20 times larger) that does not, and the budget
 * between them. Pure: the bytes are built in memory.
 */
import { buildTinyGguf } from '../gguf/tiny-llama'

export interface TinyChatQuants {
  /** `Tiny-Chat-Q4_K_M.gguf`'s bytes. */
  q4: Buffer
  /** `Tiny-Chat-F32.gguf`'s bytes. */
  f32: Buffer
  /** The repo's files (`HubRepoSpec.files`): `Tiny-Chat-Q4_K_M.gguf` and `Tiny-Chat-F32.gguf`. */
  files: Record<string, Buffer>
  /** A memory budget in GB halfway between the two files' sizes: the Q4_K_M fits, the F32 does not. */
  budgetGb: number
}

/** The two quants, each with the header's `contextLength`. */
export function tinyChatQuants(options: { contextLength: number }): TinyChatQuants {
  const { contextLength } = options
  const q4 = buildTinyGguf({ contextLength }).bytes
  const f32 = buildTinyGguf({ nEmbd: 256, nLayer: 4, nFf: 1024, contextLength }).bytes
  return {
    q4,
    f32,
    files: { 'Tiny-Chat-Q4_K_M.gguf': q4, 'Tiny-Chat-F32.gguf': f32 },
    budgetGb: (q4.length + f32.length) / 2 / 1024 ** 3,
  }
}
