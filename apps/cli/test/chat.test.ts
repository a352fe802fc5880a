/** `svc chat` runs the chat app in the foreground (what svc-chat.service runs) and stops on SIGTERM. */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const SVC = join(REPO_ROOT, 'apps/cli/bin/svc.js')

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [SVC, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, exited, output: () => out }
}

describe('svc chat', () => {
  it('serves the chat app with its database under the state dir, and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-chat-'))
    const chat = run(['chat', '--host', '127.0.0.1', '--port', '0'], { SVC_STATE_DIR: dir })
    try {
      const deadline = Date.now() + 30_000
      let url: string | undefined
      while (!url && Date.now() < deadline && chat.child.exitCode === null) {
        url = /"msg":"svc chat listening","url":"([^"]+)"/.exec(chat.output())?.[1]
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(url, chat.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(await (await fetch(`${url}/api/me`)).json()).toMatchObject({ identity: 'local', auth: 'off' })
      expect((await stat(join(dir, 'chat', 'chat.db'))).isFile()).toBe(true)
      chat.child.kill('SIGTERM')
      expect(await chat.exited).toBe(0)
    } finally {
      if (chat.child.exitCode === null) chat.child.kill('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses an unknown option with exit code 2 and its usage', async () => {
    const r = run(['chat', '--colour', 'blue'], {})
    expect(await r.exited).toBe(2)
    expect(r.output()).toContain('Usage: svc chat')
  })

  it('says what is wrong with its environment and exits 2', async () => {
    const r = run(['chat'], { SVC_CHAT_PORT: 'lots' })
    expect(await r.exited).toBe(2)
    expect(r.output()).toContain('SVC_CHAT_PORT must be a port number, got "lots"')
  })
})
