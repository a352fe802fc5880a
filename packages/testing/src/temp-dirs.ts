/** Temporary directories a test makes as it goes and removes in one call at the end. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TempDirs {
  /** A fresh directory under the system temp dir, named `<prefix>XXXXXX`. */
  make(): Promise<string>
  /** Removes every directory made so far (and what is in them); the next `make` starts a new set. */
  removeAll(): Promise<void>
}

/**
 * Temp dirs named after `prefix`, for `afterEach(() => dirs.removeAll())` (or `afterAll`), so a test
 * that fails half-way still leaves nothing behind.
 */
export function tempDirs(prefix: string): TempDirs {
  const made: string[] = []
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), prefix))
      made.push(dir)
      return dir
    },
    async removeAll() {
      await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })))
    },
  }
}
