/**
 * A broken `tokens.toml`. At start svc refuses with the file and the line and
 * leaves the file alone; while running it keeps the last good tokens and reports the problem —
 * never a 500.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { send, testTokenStore, useAuthServer } from './auth-harness'

const CHAT = {
  method: 'POST',
  path: '/v1/chat/completions',
  body: '{"model":"nope","messages":[{"role":"user","content":"hi"}]}',
}

describe('a tokens.toml that does not parse at start', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-tokens-'))
  })
  afterAll(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it.each([
    ['a TOML syntax error', 'line 5'],
    ['a token with an unknown scope', 'line 7'],
  ])(
    '%s: svc refuses to start, names the file and the line, and keeps the file',
    async (kind, line) => {
      const configDir = join(root, kind.replaceAll(' ', '-'))
      await mkdir(configDir, { recursive: true })
      const store = testTokenStore(configDir)
      await store.create({ label: 'ops', scope: 'admin' })
      const good = await readFile(store.path, 'utf8')
      const lines = good.split('\n')
      const header = lines.findIndex((l) => l.startsWith('[[token]]'))
      // Break the line after the table header (the file: two comment lines, blank, [[token]], id, …).
      const broken =
        kind === 'a TOML syntax error'
          ? lines.map((l, i) => (i === header + 1 ? 'id = "unterminated' : l)).join('\n')
          : lines.map((l) => (l.startsWith('scope =') ? 'scope = "superuser"' : l)).join('\n')
      await writeFile(store.path, broken)
      const expectedLine = broken.split('\n').findIndex((l) => /unterminated|superuser/.test(l)) + 1
      expect(`line ${expectedLine}`).toBe(line)
      const started = startApi({ configDir, env: { SVC_AUTH_ENABLED: '1' } })
      const failure = await started.then(
        async (api) => {
          await api[Symbol.asyncDispose]()
          return 'started'
        },
        (error: Error) => error.message,
      )
      expect(failure).toMatch(/exited with [12] before listening/)
      expect(failure).toContain(join(configDir, 'tokens.toml'))
      expect(failure).toContain(line)
      expect(await readFile(store.path, 'utf8')).toBe(broken)
    },
    60_000,
  )
})

describe('a tokens.toml broken while svc runs', () => {
  const server = useAuthServer()
  let used: string
  let unused: string
  let admin: string
  beforeAll(async () => {
    admin = (await server.mint('admin', 'ops')).token
    used = (await server.mint('v1-only', 'app')).token
    unused = (await server.mint('v1-only', 'spare')).token
  })

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

  it('keeps the last good tokens, reports the problem, and never answers 500', async () => {
    expect((await send(server.url, { ...CHAT, headers: bearer(used) })).status).toBe(404)
    const path = join(server.configDir, 'tokens.toml')
    await appendFile(path, '\n[[token]\nbroken = \n')
    const before = await readFile(path, 'utf8')
    // The store notices the change on the next request (inotify) and re-reads the file.
    await new Promise((r) => setTimeout(r, 200))
    for (const token of [used, unused]) {
      const reply = await send(server.url, { ...CHAT, headers: bearer(token) })
      expect(reply.status, reply.text).toBe(404) // past auth: model.not_found
    }
    expect((await send(server.url, { path: '/api/slots', headers: bearer(admin) })).status).toBe(200)

    const list = await send(server.url, { path: '/api/auth/tokens', headers: bearer(admin) })
    expect(list.status).toBe(200)
    const body = JSON.parse(list.text) as { tokens: { label: string }[]; problem: string | null }
    expect(body.tokens.map((t) => t.label).sort()).toEqual(['app', 'ops', 'spare'])
    expect(body.problem).toMatch(/tokens\.toml.*line \d+/)

    const create = await send(server.url, {
      method: 'POST',
      path: '/api/auth/tokens',
      headers: bearer(admin),
      body: JSON.stringify({ label: 'new' }),
    })
    expect(create.status).toBe(409)
    expect(create.code).toBe('config.invalid')
    expect(create.text).toMatch(/tokens\.toml/)
    expect(await readFile(path, 'utf8')).toBe(before)
    expect(server.logs.some((l) => l.includes('tokens.toml problem'))).toBe(true)
  })
})
