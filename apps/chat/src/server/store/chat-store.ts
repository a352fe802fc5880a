import { join } from 'node:path'
import { createConversationRepo } from './conversations'
import { type Db, openDatabase } from './database'
import { createFileRepo } from './files'
import { createMessageRepo } from './messages'
import { createUserRepo } from './users'

/** Everything the chat server keeps: one SQLite database (`<data>/chat.db`) and its repositories. */
export function openChatStore(dataDir: string) {
  const db = openDatabase(join(dataDir, 'chat.db'))
  return storeOver(db)
}

/** The repositories over an open database (tests pass `openDatabase(':memory:')`). */
export function storeOver(db: Db) {
  const store = {
    db,
    users: createUserRepo(db),
    conversations: createConversationRepo(db),
    messages: createMessageRepo(db),
    files: createFileRepo(db),
    close: () => db.close(),
  }
  return store
}

export type ChatStore = ReturnType<typeof storeOver>
