import type { Db } from './database'
import { newId } from './ids'

export interface StoredFile {
  id: string
  mime: string
  size: number
  messageId: string | null
}

/**
 * The records of stored files (the bytes live in `<data>/files/<id>`, written before the record).
 * A file belongs to the user who uploaded it or whose conversation generated it; one not linked to a
 * message (an upload never sent, or the message was edited away) is an orphan, swept after a while.
 */
export function createFileRepo(db: Db) {
  const insert = db.prepare(
    'INSERT INTO files (id, user_id, mime, size, created_at) VALUES (@id, @userId, @mime, @size, @now)',
  )
  const one = db.prepare<
    [string, number],
    { id: string; mime: string; size: number; message_id: string | null }
  >('SELECT id, mime, size, message_id FROM files WHERE id = ? AND user_id = ?')
  const orphans = db.prepare<[number], { id: string }>(
    'SELECT id FROM files WHERE message_id IS NULL AND created_at < ?',
  )
  const remove = db.prepare<[string]>('DELETE FROM files WHERE id = ?')
  const all = db.prepare<[], { id: string }>('SELECT id FROM files')
  const used = db.prepare<[number], { bytes: number }>(
    'SELECT COALESCE(SUM(size), 0) AS bytes FROM files WHERE user_id = ?',
  )

  return {
    /** Records a file whose bytes are already on disk under `id` (see `reserve`). */
    add(userId: number, init: { id: string; mime: string; size: number }, now = Date.now()): void {
      insert.run({ ...init, userId, now })
    },

    /** A fresh id to write the bytes under before `add`. */
    reserve(): string {
      return newId()
    },

    get(userId: number, id: string): StoredFile | undefined {
      const row = one.get(id, userId)
      return row && { id: row.id, mime: row.mime, size: row.size, messageId: row.message_id }
    },

    /** Removes the records of files not linked to any message since before `before`; answers their ids. */
    sweepOrphans(before: number): string[] {
      return db.transaction(() => {
        const ids = orphans.all(before).map((r) => r.id)
        for (const id of ids) remove.run(id)
        return ids
      })()
    },

    /** The bytes the user's files take (uploads, sent or not, and generated images). */
    usedBy(userId: number): number {
      return used.get(userId)?.bytes ?? 0
    },

    /** Every id with a record (to find bytes on disk that have none). */
    ids(): Set<string> {
      return new Set(all.all().map((r) => r.id))
    },
  }
}

export type FileRepo = ReturnType<typeof createFileRepo>
