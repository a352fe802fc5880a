import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type Database from 'better-sqlite3'
import { MIGRATIONS } from './migrations'

export type Db = Database.Database

/**
 * Opens (creating if needed) the chat database and brings its schema up to date.
 *
 * - WAL journal with `synchronous = NORMAL`: a killed process never corrupts the file and loses no
 *   committed transaction (only a power cut may lose the last few); readers never block the writer.
 * - Foreign keys on, so deleting a conversation deletes its messages.
 * - A database written by a newer svc (more migrations than this one knows) is refused, not downgraded.
 * - The SQLite addon is loaded here, not when this module is imported (the server opens the database
 *   on first use; see chat-store.ts).
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o750 })
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database
  const db = new Sqlite(file)
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
  assertKnownSchema(current, migrations.length)
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!)
      db.pragma(`user_version = ${version + 1}`)
    })()
  }
  return migrations.length
}

/** Throws when a database's schema `version` is newer than the `known` migrations (a newer svc wrote it). */
export function assertKnownSchema(version: number, known: number = MIGRATIONS.length): void {
  if (version > known) {
    throw new Error(
      `the chat database has schema version ${version}, newer than this svc knows (${known}); upgrade svc`,
    )
  }
}

const HEADER = Buffer.from('SQLite format 3\0', 'latin1')
/** A WAL file's own header; frames (changes not yet in the database file) follow it. */
const WAL_HEADER_BYTES = 32

/**
 * The schema version (`PRAGMA user_version`) of the database at `file`, read from its header without
 * SQLite: bytes 60–63 of the 100-byte header, big-endian. 0 when there is no database yet (SQLite
 * would create it). Undefined when the header cannot be trusted and only SQLite can tell: the file
 * is not a SQLite database, or a write-ahead log beside it holds changes not yet copied into the file
 * (the process that wrote them did not close the database: killed, or still running).
 */
export function schemaVersionOnDisk(file: string): number | undefined {
  const header = Buffer.alloc(100)
  let read: number
  try {
    const fd = openSync(file, 'r')
    try {
      read = readSync(fd, header, 0, header.length, 0)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    return undefined
  }
  if (read === 0) return 0 // an empty file: SQLite makes it a new database
  if (read < header.length || !header.subarray(0, HEADER.length).equals(HEADER)) return undefined
  try {
    if (statSync(`${file}-wal`).size > WAL_HEADER_BYTES) return undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined
  }
  return header.readInt32BE(60)
}
