import type { Db } from './database'
import { newId } from './ids'
import { type MessageRow, rowToMessage } from './messages'
import type { Conversation, ConversationSummary } from './types'

interface ConversationRow {
  id: string
  title: string
  model: string | null
  system_prompt: string
  created_at: number
  updated_at: number
}

export interface ConversationPatch {
  title?: string
  model?: string | null
  system?: string
}

const COLUMNS = 'id, title, model, system_prompt, created_at, updated_at'

/**
 * Conversations, always addressed together with their owner: a query for another user's conversation
 * finds nothing, exactly like one for an id that does not exist.
 */
export function createConversationRepo(db: Db) {
  const listAll = db.prepare<[number, number], ConversationRow>(
    `SELECT ${COLUMNS} FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
  )
  const search = db.prepare<[number, string, number], ConversationRow>(
    `SELECT ${COLUMNS} FROM conversations WHERE user_id = ? AND title LIKE ? ESCAPE '\\'
     ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
  )
  const one = db.prepare<[string, number], ConversationRow>(
    `SELECT ${COLUMNS} FROM conversations WHERE id = ? AND user_id = ?`,
  )
  const insert = db.prepare(
    `INSERT INTO conversations (id, user_id, title, model, system_prompt, created_at, updated_at)
     VALUES (@id, @userId, @title, @model, @system, @now, @now)`,
  )
  const messagesOf = db.prepare<[string], MessageRow>(
    'SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq',
  )
  const remove = db.prepare<[string, number]>('DELETE FROM conversations WHERE id = ? AND user_id = ?')
  const filesOf = db.prepare<[string], { id: string }>(
    'SELECT f.id FROM files f JOIN messages m ON m.id = f.message_id WHERE m.conversation_id = ?',
  )
  const touch = db.prepare<[number, string]>('UPDATE conversations SET updated_at = ? WHERE id = ?')

  return {
    /** Newest first; `query` matches anywhere in the title, case-insensitively (ASCII), literally. */
    list(userId: number, options: { query?: string; limit?: number } = {}): ConversationSummary[] {
      const limit = options.limit ?? 500
      const query = options.query?.trim()
      const rows = query
        ? search.all(userId, `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit)
        : listAll.all(userId, limit)
      return rows.map(rowToSummary)
    },

    create(
      userId: number,
      init: { title: string; model: string | null; system: string },
      now = Date.now(),
    ): ConversationSummary {
      const id = newId()
      insert.run({ id, userId, ...init, now })
      return rowToSummary(one.get(id, userId)!)
    },

    summary(userId: number, id: string): ConversationSummary | undefined {
      const row = one.get(id, userId)
      return row && rowToSummary(row)
    },

    /** The conversation with every message, or undefined (missing or someone else's). */
    get(userId: number, id: string): Conversation | undefined {
      const row = one.get(id, userId)
      if (!row) return undefined
      return { ...rowToSummary(row), messages: messagesOf.all(id).map(rowToMessage) }
    },

    update(userId: number, id: string, patch: ConversationPatch, now = Date.now()) {
      const row = one.get(id, userId)
      if (!row) return undefined
      const sets: string[] = ['updated_at = @now']
      if (patch.title !== undefined) sets.push('title = @title')
      if (patch.model !== undefined) sets.push('model = @model')
      if (patch.system !== undefined) sets.push('system_prompt = @system')
      db.prepare(`UPDATE conversations SET ${sets.join(', ')} WHERE id = @id AND user_id = @userId`).run({
        title: patch.title ?? null,
        model: patch.model ?? null,
        system: patch.system ?? null,
        now,
        id,
        userId,
      })
      return rowToSummary(one.get(id, userId)!)
    },

    /**
     * Deletes the conversation and its messages in one transaction; answers the ids of the files that
     * belonged to it (the caller unlinks them), or undefined when there was no such conversation.
     */
    remove(userId: number, id: string): string[] | undefined {
      return db.transaction(() => {
        if (!one.get(id, userId)) return undefined
        const files = filesOf.all(id).map((f) => f.id)
        remove.run(id, userId)
        if (files.length > 0) {
          db.prepare(`DELETE FROM files WHERE id IN (${files.map(() => '?').join(',')})`).run(...files)
        }
        return files
      })()
    },

    touch(id: string, now = Date.now()): void {
      touch.run(now, id)
    },
  }
}

export type ConversationRepo = ReturnType<typeof createConversationRepo>

function rowToSummary(row: ConversationRow): ConversationSummary {
  return {
    id: row.id,
    title: row.title,
    model: row.model,
    system: row.system_prompt,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}
