import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '@svc/core/node'
import type { FileRepo } from './files'
import { ID_PATTERN } from './ids'

/**
 * Stored files (uploaded attachments and generated images) on disk, in `<data>/files/<id>`, with their
 * records in the database. The bytes are written atomically before the record exists, so a record
 * always has its bytes; bytes without a record (a crash in between) are swept.
 */
export function createFileBytes(options: { dir: string; repo: FileRepo }) {
  const { dir, repo } = options
  const pathOf = (id: string) => {
    if (!ID_PATTERN.test(id)) throw new Error(`not a file id: ${id}`)
    return join(dir, id)
  }
  const unlink = async (ids: readonly string[]) => {
    await Promise.all(ids.map((id) => rm(pathOf(id), { force: true })))
  }
  return {
    /** Writes the bytes, then records them as the user's; answers the new file's id. */
    async save(userId: number, bytes: Uint8Array, mime: string): Promise<string> {
      const id = repo.reserve()
      await writeFileAtomic(pathOf(id), bytes, { mode: 0o640 })
      repo.add(userId, { id, mime, size: bytes.byteLength })
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
      const orphans = repo.sweepOrphans(now - maxAgeMs)
      await unlink(orphans)
      const known = repo.ids()
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
