/** `svc chat` runs the chat app in the foreground (what svc-chat.service runs) and stops on SIGTERM. */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LISTENING, SVC_CLI, spawnWatched } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const run = (args: string[], env: Record<string, string>) =>
  spawnWatched(process.execPath, [SVC_CLI, ...args], { env: { ...process.env, ...env } })

describe('svc chat', () => {
  it('serves the chat app with its database under the state dir, and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-chat-'))
    const chat = run(['chat', '--host', '127.0.0.1', '--port', '0'], { SVC_STATE_DIR: dir })
    try {
      const url = await chat.waitFor(LISTENING.chat, {
        what: 'svc chat',
        timeoutMs: 30_000,
      })
      expect(url, chat.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(await (await fetch(`${url}/api/me`)).json()).toMatchObject({ identity: 'local', auth: 'off' })
      expect((await stat(join(dir, 'chat', 'chat.db'))).isFile()).toBe(true)
      expect((await chat.stop()).code).toBe(0)
    } finally {
      await chat.stop('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses an unknown option with exit code 2 and its usage', async () => {
    const r = run(['chat', '--colour', 'blue'], {})
    expect((await r.exited).code).toBe(2)
    expect(r.output()).toContain('Usage: svc chat')
  })

  it('says what is wrong with its environment and exits 2', async () => {
    const r = run(['chat'], { SVC_CHAT_PORT: 'lots' })
    expect((await r.exited).code).toBe(2)
    expect(r.output()).toContain('SVC_CHAT_PORT must be a port number, got "lots"')
  })
})
