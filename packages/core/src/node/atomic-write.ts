import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

export interface AtomicWriteOptions {
  /** File mode of the new file (e.g. 0o600 for tokens.toml). Default 0o644. */
  mode?: number
  /**
   * Owner of the new file (the installer writing for the svc user). The temp file stays 0600 until
   * it has this owner, so nobody else can read the content in between.
   */
  owner?: { uid: number; gid: number }
}

/**
 * Writes `data` to `path` so that readers see either the old file or the whole new one, never a
 * half-written file: temp file in the same directory, fsync, rename over the target, fsync the
 * directory. Creates the directory when missing. The temp file is removed when anything fails.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path)
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  const mode = options.mode ?? 0o644
  await mkdir(dir, { recursive: true })
  try {
    const fh = await open(tmp, 'wx', options.owner ? 0o600 : mode)
    try {
      await fh.writeFile(data)
      if (options.owner) await fh.chown(options.owner.uid, options.owner.gid)
      await fh.chmod(mode) // the umask may have narrowed or widened open()'s mode
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, path)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  await syncDir(dir)
}

/** Makes a rename durable. Some filesystems refuse fsync on a directory; that is not an error. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r')
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
  } catch {
    // best effort: durability of the directory entry, not correctness of the content
  }
}
