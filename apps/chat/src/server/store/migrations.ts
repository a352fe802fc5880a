/**
 * The chat database's schema, as an ordered list of migrations. `PRAGMA user_version` records how many
 * have run; each runs in its own transaction, so a crash mid-migration leaves the previous version.
 * Never edit a migration that has shipped: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: people, conversations, messages, stored files (uploads and generated images).
  `
  CREATE TABLE users (
    id          INTEGER PRIMARY KEY,
    identity    TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL
  );
  CREATE TABLE conversations (
    id             TEXT PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title          TEXT NOT NULL,
    model          TEXT,
    system_prompt  TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
  );
  CREATE INDEX conversations_by_user ON conversations(user_id, updated_at DESC);
  CREATE TABLE messages (
    id               TEXT PRIMARY KEY,
    conversation_id  TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    role             TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    kind             TEXT NOT NULL DEFAULT 'text' CHECK (kind IN ('text', 'image')),
    content          TEXT NOT NULL DEFAULT '',
    reasoning        TEXT NOT NULL DEFAULT '',
    attachments      TEXT NOT NULL DEFAULT '[]',
    status           TEXT NOT NULL DEFAULT 'complete'
                     CHECK (status IN ('complete', 'streaming', 'stopped', 'interrupted', 'error')),
    error            TEXT,
    model            TEXT,
    created_at       INTEGER NOT NULL,
    UNIQUE (conversation_id, seq)
  );
  CREATE TABLE files (
    id          TEXT PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    message_id  TEXT REFERENCES messages(id) ON DELETE SET NULL,
    mime        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
  );
  CREATE INDEX files_by_message ON files(message_id);
  `,
  // 2: each person's stored bytes are summed on every upload (the storage quota).
  `
  CREATE INDEX files_by_user ON files(user_id);
  `,
]
