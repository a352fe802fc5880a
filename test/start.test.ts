/**
 * `pnpm start` is one node launcher (scripts/start.mjs) that starts the API and the chat app side by
 * side and forwards signals: both come up, SIGTERM stops both, and nothing is left behind.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '@svc/testing'
import { describe, expect, it } from 'vitest'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('pnpm start (scripts/start.mjs)', () => {
  it('starts the API and the chat app, and SIGTERM stops both with exit 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-start-'))
    const launcher = spawn(process.execPath, [join(REPO_ROOT, 'scripts/start.mjs')], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
        SVC_CHAT_HOST: '127.0.0.1',
        SVC_CHAT_PORT: '0',
        SVC_CONFIG_DIR: join(dir, 'config'),
        SVC_STATE_DIR: join(dir, 'state'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    launcher.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    launcher.stderr.on('data', (d: Buffer) => {
      out += d.toString()
    })
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)))
    try {
      const deadline = Date.now() + 60_000
      let api: string | undefined
      let chat: string | undefined
      while ((!api || !chat) && Date.now() < deadline) {
        api = /"msg":"svc listening","url":"([^"]+)"/.exec(out)?.[1]
        chat = /"msg":"svc chat listening","url":"([^"]+)"/.exec(out)?.[1]
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(api, out).toBeDefined()
      expect(chat, out).toBeDefined()
      expect(((await (await fetch(`${api}/api/status`)).json()) as { status: string }).status).toBe('ok')
      expect(((await (await fetch(`${chat}/api/health`)).json()) as { status: string }).status).toBe('ok')
      // Two children of the one launcher, and no other process (no pnpm, no tsx CLI) in between.
      const children = await childPids(launcher.pid!)
      expect(children).toHaveLength(2)

      launcher.kill('SIGTERM')
      expect(await exited).toBe(0)
      for (const pid of children) expect(alive(pid)).toBe(false)
      expect(out).toMatch(/"msg":"stopped"/)
    } finally {
      if (launcher.exitCode === null) launcher.kill('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    }
  }, 90_000)
})

/** The direct children of a process (from /proc). */
async function childPids(pid: number): Promise<number[]> {
  const { readFile } = await import('node:fs/promises')
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')
  return text.trim().split(/\s+/).filter(Boolean).map(Number)
}
