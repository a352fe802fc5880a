import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openChatStore, storeOver } from './chat-store'
import { migrate, openDatabase, schemaVersionOnDisk } from './database'
import { MIGRATIONS } from './migrations'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-chat-store-'))
  dirs.push(d)
  return d
}
const memory = () => storeOver(openDatabase(':memory:'))

describe('the chat database', () => {
  it('is created with every migration, in WAL mode, and opening it again changes nothing', () => {
    const dir = tempDir()
    const store = openChatStore(dir)
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length)
    const alice = store.users.ensure('alice@example.com')
    store.close()
    const again = openChatStore(dir)
    expect(again.users.ensure('alice@example.com')).toEqual(alice)
    again.close()
  })

  it('refuses a database written by a newer svc instead of downgrading it', () => {
    const file = join(tempDir(), 'chat.db')
    const db = new Database(file)
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`)
    db.close()
    expect(() => openDatabase(file)).toThrow(/newer than this svc knows/)
  })

  it('is opened on first use, once, with onOpen run before that use', () => {
    const dir = tempDir()
    const opened: string[] = []
    const store = openChatStore(dir, { onOpen: (s) => opened.push(s.users.ensure('first').identity) })
    expect([store.opened, existsSync(join(dir, 'chat.db'))]).toEqual([false, false])
    expect(store.users.ensure('second').id).toBe(2)
    expect(store.conversations.list(1)).toEqual([])
    expect([store.opened, opened]).toEqual([true, ['first']])
    store.close()
    expect(() => store.users).toThrow(/closed/)
  })

  it("has its schema version read from the file's header, or undefined where only SQLite can tell", () => {
    const dir = tempDir()
    const file = join(dir, 'chat.db')
    expect(schemaVersionOnDisk(file)).toBe(0) // no database yet
    openDatabase(file).close()
    expect(schemaVersionOnDisk(file)).toBe(MIGRATIONS.length)
    const writer = new Database(file)
    writer.pragma('user_version = 99') // into the write-ahead log; the header still says the old one
    expect(schemaVersionOnDisk(file)).toBeUndefined()
    writer.close()
    expect(schemaVersionOnDisk(file)).toBe(99)
    writeFileSync(file, 'not a database'.repeat(10))
    expect(schemaVersionOnDisk(file)).toBeUndefined()
  })

  it('runs only the migrations a database has not seen', () => {
    const db = new Database(':memory:')
    expect(migrate(db, ['CREATE TABLE a (x)'])).toBe(1)
    expect(migrate(db, ['CREATE TABLE a (x)', 'CREATE TABLE b (y)'])).toBe(2)
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all(),
    ).toEqual(['a', 'b'])
  })

  it('keeps a failed migration out entirely (the version stays where it was)', () => {
    const db = new Database(':memory:')
    expect(() => migrate(db, ['CREATE TABLE a (x); CREATE TABLE a (x)'])).toThrow()
    expect(db.pragma('user_version', { simple: true })).toBe(0)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'a'").pluck().get()).toBe(0)
  })
})

describe('conversations', () => {
  it('belong to one user: another finds, changes and deletes nothing of them', () => {
    const store = memory()
    const alice = store.users.ensure('alice')
    const bob = store.users.ensure('bob')
    const c = store.conversations.create(alice.id, { title: 'Mine', model: null, system: '' })
    expect(store.conversations.list(bob.id)).toEqual([])
    expect(store.conversations.get(bob.id, c.id)).toBeUndefined()
    expect(store.conversations.update(bob.id, c.id, { title: 'Stolen' })).toBeUndefined()
    expect(store.conversations.remove(bob.id, c.id)).toBeUndefined()
    expect(store.conversations.list(alice.id).map((x) => x.title)).toEqual(['Mine'])
  })

  it('are listed newest first and searched by title, literally and ignoring case', () => {
    const store = memory()
    const u = store.users.ensure('u').id
    store.conversations.create(u, { title: 'Soup recipes', model: null, system: '' }, 1)
    store.conversations.create(u, { title: '100% sure', model: null, system: '' }, 2)
    store.conversations.create(u, { title: 'snake_case', model: null, system: '' }, 3)
    expect(store.conversations.list(u).map((c) => c.title)).toEqual([
      'snake_case',
      '100% sure',
      'Soup recipes',
    ])
    expect(store.conversations.list(u, { query: 'SOUP' }).map((c) => c.title)).toEqual(['Soup recipes'])
    expect(store.conversations.list(u, { query: '%' }).map((c) => c.title)).toEqual(['100% sure'])
    expect(store.conversations.list(u, { query: '_' }).map((c) => c.title)).toEqual(['snake_case'])
    expect(store.conversations.list(u, { query: 'nothing' })).toEqual([])
  })

  it('are deleted with their messages, answering the files to remove', () => {
    const store = memory()
    const u = store.users.ensure('u').id
    const c = store.conversations.create(u, { title: 't', model: null, system: '' })
    store.files.add(u, { id: 'AAAAAAAAAAAAAAAA', mime: 'image/png', size: 3 })
    store.messages.append(c.id, u, {
      role: 'user',
      content: 'look',
      attachments: [{ file: 'AAAAAAAAAAAAAAAA', mime: 'image/png' }],
    })
    expect(store.conversations.remove(u, c.id)).toEqual(['AAAAAAAAAAAAAAAA'])
    expect(store.db.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(0)
    expect(store.files.get(u, 'AAAAAAAAAAAAAAAA')).toBeUndefined()
  })
})

describe('messages', () => {
  it('keep their order; an answer streams into its row and ends with a status', () => {
    const store = memory()
    const u = store.users.ensure('u').id
    const c = store.conversations.create(u, { title: 't', model: 'primary', system: 'Be brief.' })
    store.messages.append(c.id, u, { role: 'user', content: 'Hi' })
    const a = store.messages.append(c.id, u, { role: 'assistant', status: 'streaming', model: 'primary' })
    store.messages.progress(a.id, 'Hel', 'thinking')
    expect(store.conversations.get(u, c.id)?.messages.map((m) => [m.seq, m.content, m.status])).toEqual([
      [1, 'Hi', 'complete'],
      [2, 'Hel', 'streaming'],
    ])
    store.messages.finish(a.id, { status: 'complete', content: 'Hello', reasoning: 'thinking' })
    // Progress after the end is ignored (a late save never overwrites the final answer).
    store.messages.progress(a.id, 'Hel', '')
    const final = store.conversations.get(u, c.id)!.messages[1]!
    expect([final.content, final.reasoning, final.status]).toEqual(['Hello', 'thinking', 'complete'])
  })

  it('left streaming by a dead process become interrupted at the next start, keeping their text', () => {
    const store = memory()
    const u = store.users.ensure('u').id
    const c = store.conversations.create(u, { title: 't', model: null, system: '' })
    const a = store.messages.append(c.id, u, { role: 'assistant', status: 'streaming' })
    store.messages.progress(a.id, 'partial', '')
    expect(store.messages.markInterrupted()).toBe(1)
    const m = store.messages.get(c.id, a.id)!
    expect([m.status, m.content]).toEqual(['interrupted', 'partial'])
    expect(m.error).toMatch(/stopped while this answer was being written/)
    expect(store.messages.markInterrupted()).toBe(0)
  })

  it('after a point are dropped for an edit or a regeneration', () => {
    const store = memory()
    const u = store.users.ensure('u').id
    const c = store.conversations.create(u, { title: 't', model: null, system: '' })
    const q1 = store.messages.append(c.id, u, { role: 'user', content: 'one' })
    store.messages.append(c.id, u, { role: 'assistant', content: 'a1' })
    store.messages.append(c.id, u, { role: 'user', content: 'two' })
    store.messages.append(c.id, u, { role: 'assistant', content: 'a2' })
    store.messages.truncateAfter(c.id, q1.seq)
    expect(store.conversations.get(u, c.id)!.messages.map((m) => m.content)).toEqual(['one'])
    expect(store.messages.append(c.id, u, { role: 'assistant' }).seq).toBe(2)
  })
})
