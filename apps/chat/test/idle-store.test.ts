/**
 * The chat server opens its database on first use: idle, it holds neither SQLite nor its addon. What
 * start did with the database still happens, and before any request reads it: a database written by a
 * newer svc is refused at start, answers a dead process left streaming are marked interrupted, and
 * stray files are swept.
 */
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openChatStore } from '../src/server/store/chat-store'
import { MIGRATIONS } from '../src/server/store/migrations'
import type { Conversation } from '../src/server/store/types'
import { startChatProcess } from './chat-process'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})
async function stateDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'svc-chat-idle-'))
  dirs.push(d)
  return d
}
const dbFile = (state: string) => join(state, 'chat', 'chat.db')

/** The native addons (`.node` files) a process has mapped, each once. */
async function addons(pid: number): Promise<string[]> {
  return [...new Set((await readFile(`/proc/${pid}/maps`, 'utf8')).match(/\S+\.node$/gm))]
}

describe('the chat database, opened on first use', () => {
  it('is not opened by an idle server (no SQLite addon mapped) and is by its first request', async () => {
    const state = await stateDir()
    await using chat = await startChatProcess({ stateDir: state })
    expect(await addons(chat.pid)).toEqual([])
    await expect(stat(dbFile(state))).rejects.toThrow(/ENOENT/)

    const res = await fetch(`${chat.url}/api/conversations`)
    expect(res.status).toBe(200)
    // better-sqlite3 13 loads its N-API prebuild (prebuilds/linux-x64.node); a source build is build/Release/better_sqlite3.node.
    expect(await addons(chat.pid)).toEqual([
      expect.stringMatching(/better-sqlite3\/(prebuilds\/[\w-]+|build\/Release\/better_sqlite3)\.node$/),
    ])
    expect((await stat(dbFile(state))).isFile()).toBe(true)
  }, 30_000)

  it('written by a newer svc is refused at start, as before', async () => {
    const state = await stateDir()
    await mkdir(join(state, 'chat'), { recursive: true })
    const db = new Database(dbFile(state))
    db.pragma('journal_mode = WAL')
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`)
    db.close() // closed: the version is in the file's header
    await expect(startChatProcess({ stateDir: state })).rejects.toThrow(/newer than this svc knows/)
  }, 30_000)

  it('written by a newer svc that is still writing it (its log not yet in the file) is refused at start', async () => {
    const state = await stateDir()
    await mkdir(join(state, 'chat'), { recursive: true })
    const db = new Database(dbFile(state))
    try {
      db.pragma('journal_mode = WAL')
      db.pragma(`user_version = ${MIGRATIONS.length + 1}`)
      // Still open: the new version is in chat.db-wal only, the header says 0.
      await expect(startChatProcess({ stateDir: state })).rejects.toThrow(/newer than this svc knows/)
    } finally {
      db.close()
    }
  }, 30_000)

  it('marks the answers a dead process left streaming before the first request reads them', async () => {
    const state = await stateDir()
    const store = openChatStore(join(state, 'chat'))
    const user = store.users.ensure('local').id
    const conversation = store.conversations.create(user, { title: 'cut', model: null, system: '' })
    const answer = store.messages.append(conversation.id, user, { role: 'assistant', status: 'streaming' })
    store.messages.progress(answer.id, 'half an ans', '')
    store.close()

    await using chat = await startChatProcess({ stateDir: state })
    const res = await fetch(`${chat.url}/api/conversations/${conversation.id}`)
    expect(res.status).toBe(200)
    const { messages } = ((await res.json()) as { conversation: Conversation }).conversation
    expect(messages.map((m) => [m.status, m.content])).toEqual([['interrupted', 'half an ans']])
  }, 30_000)

  it('sweeps stray files when it opens', async () => {
    const state = await stateDir()
    const files = join(state, 'chat', 'files')
    await mkdir(files, { recursive: true })
    const stray = join(files, '.tmp-left-by-a-crash')
    await writeFile(stray, 'half a picture')
    const longAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
    await utimes(stray, longAgo, longAgo)

    await using chat = await startChatProcess({ stateDir: state })
    expect((await fetch(`${chat.url}/api/conversations`)).status).toBe(200)
    const t0 = Date.now()
    while ((await stat(stray).catch(() => undefined)) && Date.now() - t0 < 5_000)
      await new Promise((r) => setTimeout(r, 20))
    await expect(stat(stray)).rejects.toThrow(/ENOENT/)
  }, 30_000)
})
