import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { encodeGguf } from '@svc/testing'

/**
 * Writes a stand-in weights file into `dir` (made when missing) and returns its path: a GGUF header
 * with no tensors (32 bytes), which passes svc's check that a file is a model (`model-header.ts`). For
 * slots whose provider never reads the file (the echo fixture, a remote runtime) but that still load
 * a model by path.
 */
export async function writePlaceholderWeights(dir: string, name = 'w.gguf'): Promise<string> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, name)
  await writeFile(path, encodeGguf(new Map(), []))
  return path
}
