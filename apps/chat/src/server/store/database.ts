import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { MIGRATIONS } from './migrations'

export type Db = Database.Database

/**
 * Opens (creating if needed) the chat database and brings its schema up to date.
 *
 * - WAL journal with `synchronous = NORMAL`: a killed process never corrupts the file and loses no
 *   committed transaction (only a power cut may lose the last few); readers never block the writer.
 * - Foreign keys on, so deleting a conversation deletes its messages.
 * - A database written by a newer svc (more migrations than this one knows) is refused, not downgraded.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o750 })
  const db = new Database(file)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    migrate(db)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/** Runs the migrations this database has not seen yet; returns the resulting schema version. */
export function migrate(db: Db, migrations: readonly string[] = MIGRATIONS): number {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > migrations.length) {
    throw new Error(
      `the chat database has schema version ${current}, newer than this svc knows (${migrations.length}); upgrade svc`,
    )
  }
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!)
      db.pragma(`user_version = ${version + 1}`)
    })()
  }
  return migrations.length
}
