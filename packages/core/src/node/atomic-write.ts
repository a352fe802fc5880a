import { randomBytes } from 'node:crypto'
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { SvcError } from '../errors'

export interface AtomicWriteOptions {
  /** File mode of the new file (e.g. 0o600 for tokens.toml). Default 0o644. */
  mode?: number
  /**
   * Owner of the new file (the installer writing for the svc user). The temp file stays 0600 until
   * it has this owner, so nobody else can read the content in between.
   */
  owner?: { uid: number; gid: number }
  /**
   * When `path` exists (a plain file), the new file gets its owner and group instead of `owner`
   * (which then applies to a new file only): a file shared by the service user and root's CLI stays
   * the service's whoever writes it. Throws, leaving the old file in place, when that owner cannot
   * be kept (a writer that is neither root nor the owner).
   */
  keepOwner?: boolean
  /** When `path` exists (a plain file), the new file gets its mode instead of `mode`. */
  keepMode?: boolean
  /**
   * Default true: fsync the file and its directory, so the new content survives a power loss. False
   * for files whose content is void after a reboot anyway (a running process's pid file): the write
   * stays atomic for readers and against a crash of this process, without two disk flushes.
   */
  durable?: boolean
}

/**
 * Writes `data` to `path` so that readers see either the old file or the whole new one, never a
 * half-written file: temp file in the same directory, fsync, rename over the target, fsync the
 * directory (the fsyncs only when `durable`, the default). Creates the directory when missing. The temp file is removed when anything fails.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path)
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  await mkdir(dir, { recursive: true })
  const kept = options.keepOwner || options.keepMode ? await plainFileMeta(path) : undefined
  const mode = (options.keepMode ? kept?.mode : undefined) ?? options.mode ?? 0o644
  const owner = (options.keepOwner ? kept?.owner : undefined) ?? options.owner
  try {
    const fh = await open(tmp, 'wx', owner ? 0o600 : mode)
    try {
      await fh.writeFile(data)
      if (owner) {
        const now = await fh.stat()
        if (now.uid !== owner.uid || now.gid !== owner.gid)
          await fh.chown(owner.uid, owner.gid).catch((error: NodeJS.ErrnoException) => {
            // config.invalid (409): the file is there and fine, this process may not replace it as it is
            throw new SvcError(
              'config.invalid',
              `cannot keep the owner of ${path} (uid ${owner.uid}, gid ${owner.gid}): ${error.code ?? error.message}; run as root or as its owner`,
            )
          })
      }
      await fh.chmod(mode) // the umask may have narrowed or widened open()'s mode
      if (options.durable !== false) await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, path)
  } catch (error) {
    await rm(tmp, { force: true })
    throw error
  }
  if (options.durable !== false) await syncDir(dir)
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

/** Owner and mode of a plain file at `path` (not through a link), or undefined. */
async function plainFileMeta(path: string) {
  const st = await lstat(path).catch(() => undefined)
  if (!st?.isFile()) return undefined
  return { mode: st.mode & 0o7777, owner: { uid: st.uid, gid: st.gid } }
}
