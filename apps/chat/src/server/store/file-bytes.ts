import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { writeFileAtomic } from '@svc/core/node'
import type { FileRepo } from './files'
import { ID_PATTERN } from './ids'

export interface FileBytesOptions {
  dir: string
  /** The files' records, asked for at each use (the store opens its database on first use). */
  repo: () => FileRepo
  /** What one person may store in all (`SVC_CHAT_QUOTA_MB`); 0 or unset: no limit. */
  quotaBytes?: number
}

/**
 * Stored files (uploaded attachments and generated images) on disk, in `<data>/files/<id>`, with their
 * records in the database. The bytes are written atomically before the record exists, so a record
 * always has its bytes; bytes without a record (a crash in between) are swept.
 *
 * Each person's files together stay within the quota: a file that would pass it is refused with 413
 * `storage.quota_exceeded` (checked before the bytes are written, and again in the same tick as the
 * record is added, so two uploads at once cannot both slip under it).
 */
export function createFileBytes(options: FileBytesOptions) {
  const { dir, repo } = options
  const quota = options.quotaBytes ?? 0
  const pathOf = (id: string) => {
    if (!ID_PATTERN.test(id)) throw new Error(`not a file id: ${id}`)
    return join(dir, id)
  }
  const unlink = async (ids: readonly string[]) => {
    await Promise.all(ids.map((id) => rm(pathOf(id), { force: true })))
  }
  /** Throws 413 `storage.quota_exceeded` when `size` more bytes would pass the user's quota. */
  const ensureRoom = (userId: number, size: number, param: string | null = null): void => {
    if (quota <= 0) return
    const used = repo().usedBy(userId)
    if (used + size <= quota) return
    throw new SvcError(
      'storage.quota_exceeded',
      `your stored images take ${mb(used)} of your ${mb(quota)}, and this needs ${mb(size)} more: delete conversations with images you no longer need (the operator sets the limit with SVC_CHAT_QUOTA_MB)`,
      { param },
    )
  }
  return {
    ensureRoom,

    /** Writes the bytes, then records them as the user's; answers the new file's id. */
    async save(
      userId: number,
      bytes: Uint8Array,
      mime: string,
      param: string | null = null,
    ): Promise<string> {
      const size = bytes.byteLength
      ensureRoom(userId, size, param)
      const id = repo().reserve()
      await writeFileAtomic(pathOf(id), bytes, { mode: 0o640 })
      try {
        ensureRoom(userId, size, param) // others may have stored meanwhile; this and `add` are one tick
        repo().add(userId, { id, mime, size })
      } catch (error) {
        await rm(pathOf(id), { force: true })
        throw error
      }
      return id
    },

    read(id: string): Promise<Buffer> {
      return readFile(pathOf(id))
    },

    path: pathOf,
    unlink,

    /**
     * Deletes files linked to no message for longer than `maxAgeMs` (uploads never sent, images of
     * messages edited away) and bytes on disk that have no record. Answers how many went.
     */
    async sweep(maxAgeMs: number, now = Date.now()): Promise<number> {
      const orphans = repo().sweepOrphans(now - maxAgeMs)
      await unlink(orphans)
      const known = repo().ids()
      let names: string[] = []
      try {
        names = await readdir(dir)
      } catch {
        return orphans.length // no files yet
      }
      let strays = 0
      for (const name of names) {
        const full = join(dir, name)
        // Leftover temp files of an interrupted write, and bytes whose record never came.
        const stray = name.startsWith('.') || (ID_PATTERN.test(name) && !known.has(name))
        if (!stray) continue
        const info = await stat(full).catch(() => undefined)
        if (info && now - info.mtimeMs > maxAgeMs) {
          await rm(full, { force: true })
          strays++
        }
      }
      return orphans.length + strays
    },
  }
}

export type FileBytes = ReturnType<typeof createFileBytes>

/** Bytes as MB with one decimal (`12.3 MB`). */
function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
