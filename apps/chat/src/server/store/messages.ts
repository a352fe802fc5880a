import type { Db } from './database'
import { newId } from './ids'
import type { Attachment, Message, MessageKind, MessageRole, MessageStatus } from './types'

/** A message as its database row: the attachments as JSON text, the time under its column name. */
export type MessageRow = Omit<Message, 'attachments' | 'createdAt'> & {
  attachments: string
  created_at: number
}

export interface NewMessage {
  role: MessageRole
  kind?: MessageKind
  content?: string
  attachments?: Attachment[]
  status?: MessageStatus
  model?: string | null
}

export interface FinishMessage {
  status: Exclude<MessageStatus, 'streaming'>
  content: string
  reasoning: string
  error?: string | null
  attachments?: Attachment[]
}

/**
 * Messages of a conversation, ordered by `seq`. Every write is one small transaction, so a process
 * killed at any instant leaves each message either as it was or as written, never torn.
 */
export function createMessageRepo(db: Db) {
  const nextSeq = db.prepare<[string], { next: number }>(
    'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM messages WHERE conversation_id = ?',
  )
  const insert = db.prepare(
    `INSERT INTO messages (id, conversation_id, seq, role, kind, content, attachments, status, model, created_at)
     VALUES (@id, @conversationId, @seq, @role, @kind, @content, @attachments, @status, @model, @now)`,
  )
  const byId = db.prepare<[string, string], MessageRow>(
    'SELECT * FROM messages WHERE id = ? AND conversation_id = ?',
  )
  const progress = db.prepare<[string, string, string]>(
    `UPDATE messages SET content = ?, reasoning = ? WHERE id = ? AND status = 'streaming'`,
  )
  const finish = db.prepare(
    `UPDATE messages SET status = @status, content = @content, reasoning = @reasoning, error = @error,
       attachments = COALESCE(@attachments, attachments) WHERE id = @id`,
  )
  const truncate = db.prepare<[string, number]>('DELETE FROM messages WHERE conversation_id = ? AND seq > ?')
  const lastUser = db.prepare<[string], MessageRow>(
    `SELECT * FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1`,
  )
  const edit = db.prepare<[string, string]>('UPDATE messages SET content = ? WHERE id = ?')
  const interrupt = db.prepare(
    `UPDATE messages SET status = 'interrupted', error = 'the chat server stopped while this answer was being written'
     WHERE status = 'streaming'`,
  )
  const attach = db.prepare<[string, string, number]>(
    'UPDATE files SET message_id = ? WHERE id = ? AND user_id = ? AND message_id IS NULL',
  )

  return {
    /** Appends at the end of the conversation; `attachments` must be the caller's own files. */
    append(conversationId: string, userId: number, init: NewMessage, now = Date.now()): Message {
      return db.transaction(() => {
        const id = newId()
        const attachments = init.attachments ?? []
        insert.run({
          id,
          conversationId,
          seq: nextSeq.get(conversationId)!.next,
          role: init.role,
          kind: init.kind ?? 'text',
          content: init.content ?? '',
          attachments: JSON.stringify(attachments),
          status: init.status ?? 'complete',
          model: init.model ?? null,
          now,
        })
        for (const a of attachments) attach.run(id, a.file, userId)
        return rowToMessage(byId.get(id, conversationId)!)
      })()
    },

    get(conversationId: string, id: string): Message | undefined {
      const row = byId.get(id, conversationId)
      return row && rowToMessage(row)
    },

    /** Saves what a streaming answer has so far; a no-op once the message is no longer streaming. */
    progress(id: string, content: string, reasoning: string): void {
      progress.run(content, reasoning, id)
    },

    finish(id: string, done: FinishMessage): void {
      finish.run({
        id,
        status: done.status,
        content: done.content,
        reasoning: done.reasoning,
        error: done.error ?? null,
        attachments: done.attachments ? JSON.stringify(done.attachments) : null,
      })
    },

    /** Links stored files to a message (they are then deleted with its conversation). */
    attach(messageId: string, userId: number, files: readonly string[]): void {
      db.transaction(() => {
        for (const file of files) attach.run(messageId, file, userId)
      })()
    },

    /** Deletes every message after `seq` (edit and regenerate continue from an earlier point). */
    truncateAfter(conversationId: string, seq: number): void {
      truncate.run(conversationId, seq)
    },

    lastUser(conversationId: string): Message | undefined {
      const row = lastUser.get(conversationId)
      return row && rowToMessage(row)
    },

    editContent(id: string, content: string): void {
      edit.run(content, id)
    },

    /** At start-up: answers left `streaming` by a process that died become `interrupted`. */
    markInterrupted(): number {
      return interrupt.run().changes
    },
  }
}

export type MessageRepo = ReturnType<typeof createMessageRepo>

export function rowToMessage(row: MessageRow): Message {
  return {
    id: row.id,
    seq: row.seq,
    role: row.role,
    kind: row.kind,
    content: row.content,
    reasoning: row.reasoning,
    attachments: parseAttachments(row.attachments),
    status: row.status,
    error: row.error,
    model: row.model,
    createdAt: row.created_at,
  }
}

function parseAttachments(text: string): Attachment[] {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? (value as Attachment[]) : []
  } catch {
    return []
  }
}
