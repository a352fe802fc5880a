import { mkdir, open, readFile, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface FileLockOptions {
  /** How long to keep trying before giving up. Default 10 s. */
  timeoutMs?: number
  /**
   * A lock file without a readable pid (its writer died between creating and writing it) is taken
   * over once it is older than this. Default 30 s. A lock whose pid is gone is taken over at once.
   */
  staleMs?: number
}

/**
 * Runs `fn` while holding an exclusive lock file (`<path>.lock`, created with O_EXCL) shared by every
 * process that writes `path` (the API and the CLI). The lock holds the owner's pid; a lock whose owner
 * no longer exists is taken over at once, so a crashed writer never blocks the others.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const lockPath = `${path}.lock`
  const deadline = Date.now() + (options.timeoutMs ?? 10_000)
  const staleMs = options.staleMs ?? 30_000
  let delay = 2
  await mkdir(dirname(path), { recursive: true })
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx', 0o600)
      await fh.writeFile(`${process.pid}\n`)
      await fh.close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (await isStale(lockPath, staleMs)) {
        await rm(lockPath, { force: true })
        continue
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock on ${path}`)
      await sleep(delay)
      delay = Math.min(delay * 2, 50)
    }
  }
  try {
    return await fn()
  } finally {
    await rm(lockPath, { force: true })
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)])
    const pid = Number.parseInt(text, 10)
    if (Number.isInteger(pid) && pid > 0 && !isAlive(pid)) return true
    // An empty file is a lock being created right now, unless it has been empty for long.
    return Date.now() - info.mtimeMs > staleMs && !(Number.isInteger(pid) && isAlive(pid))
  } catch {
    return false
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
