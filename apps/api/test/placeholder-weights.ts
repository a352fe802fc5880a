import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Writes a one-byte stand-in weights file into `dir` (made when missing) and returns its path. For
 * slots whose provider never reads the file (the echo fixture, a remote runtime) but that still load
 * a model by path.
 */
export async function writePlaceholderWeights(dir: string, name = 'w.gguf'): Promise<string> {
  await mkdir(dir, { recursive: true })
  const path = join(dir, name)
  await writeFile(path, 'x')
  return path
}
