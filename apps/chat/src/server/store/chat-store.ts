import { join } from 'node:path'
import { createConversationRepo } from './conversations'
import { assertKnownSchema, type Db, openDatabase, schemaVersionOnDisk } from './database'
import { createFileRepo } from './files'
import { createMessageRepo } from './messages'
import { createUserRepo } from './users'

export interface OpenChatStoreOptions {
  /**
   * Runs once, when the database is first opened and before whatever asked for it reads anything
   * (the server marks answers a dead process left streaming and sweeps orphaned files here).
   */
  onOpen?: (store: ChatStore) => void
}

/**
 * Everything the chat server keeps: one SQLite database (`<data>/chat.db`) and its repositories.
 * The database is opened (created, migrated) on first use: the first repository read. An idle chat
 * server then holds neither SQLite nor its addon (~8 MB of a process that nobody has used yet).
 */
export function openChatStore(dataDir: string, options: OpenChatStoreOptions = {}): LazyChatStore {
  const file = join(dataDir, 'chat.db')
  let open: ChatStore | undefined
  let closed = false
  const store = (): ChatStore => {
    if (open) return open
    if (closed) throw new Error('the chat database is closed')
    open = storeOver(openDatabase(file))
    options.onOpen?.(open)
    return open
  }
  return {
    file,
    get db() {
      return store().db
    },
    get users() {
      return store().users
    },
    get conversations() {
      return store().conversations
    },
    get messages() {
      return store().messages
    },
    get files() {
      return store().files
    },
    get opened() {
      return open !== undefined
    },
    close() {
      closed = true
      open?.close()
      open = undefined
    },
  }
}

/**
 * What the server checks at start without opening the database: the schema version in the file's
 * header, so a database written by a newer svc is refused at start with the same error as opening it.
 * Where only SQLite can tell (a write-ahead log that a killed process left, a file that is no
 * database), it opens the database now: the full check, and a killed process's answers marked at once.
 */
export function checkChatStore(store: LazyChatStore): void {
  const version = schemaVersionOnDisk(store.file)
  if (version === undefined) void store.db
  else assertKnownSchema(version)
}

/** The store over an open database (tests pass `openDatabase(':memory:')`). */
export function storeOver(db: Db) {
  const store = {
    db,
    users: createUserRepo(db),
    conversations: createConversationRepo(db),
    messages: createMessageRepo(db),
    files: createFileRepo(db),
    close: (): void => {
      db.close()
    },
  }
  return store
}

export type ChatStore = ReturnType<typeof storeOver>

/** A store that opens its database on first use (`openChatStore`). */
export interface LazyChatStore extends ChatStore {
  /** `<data>/chat.db`. */
  readonly file: string
  /** Whether the database has been opened yet. */
  readonly opened: boolean
}
