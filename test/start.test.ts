/**
 * `pnpm start` starts the built API and chat app in the background and returns, so nothing of pnpm
 * (and no TypeScript loader) stays running; `pnpm stop` stops them. `node scripts/start.mjs
 * --foreground` keeps both in the terminal and forwards signals.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  BUILT_ENTRIES,
  ensureBuilt,
  LISTENING,
  loopbackEnv,
  missingPart,
  nodeMajor,
  nodeVersionOf,
  REPO_ROOT,
  requiredNodeMajor,
  spawnWatched,
} from '@svc/testing'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'

const START = join(REPO_ROOT, 'scripts/start.mjs')
const pnpmHere = await new Promise<boolean>((resolve) =>
  execFile('pnpm', ['--version'], (error) => resolve(!error)),
)
if (!pnpmHere) missingPart('pnpm', 'run ./scripts/setup.sh (it installs pnpm)')

beforeAll(async () => {
  await ensureBuilt('api', 'chat', 'cli')
}, 120_000)

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

/** Temp config/state dirs and an environment that puts both servers on free loopback ports. */
async function sandbox(extra: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-start-'))
  const pids: number[] = []
  cleanups.push(async () => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL')
    await rm(dir, { recursive: true, force: true })
  })
  const env = { ...process.env, ...loopbackEnv(dir), ...extra }
  return { dir, env, pids }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(cmd, args, { cwd: REPO_ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, out: stdout + stderr })
    })
  })
}

/** `  Dashboard and API  http://…/  (pid N, …)` lines of `svc start` (the URL without its last slash). */
function started(out: string): { api: { url: string; pid: number }; chat: { url: string; pid: number } } {
  const find = (name: string) => {
    const m = new RegExp(`${name}\\s+(http://\\S+?)/?\\s+\\(pid (\\d+)`).exec(out)
    if (!m) throw new Error(`no ${name} line in:\n${out}`)
    return { url: m[1]!, pid: Number(m[2]) }
  }
  return { api: find('Dashboard and API'), chat: find('Chat app') }
}

/** Running (an exited process waiting for its parent to reap it, a zombie, counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

async function argvOf(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean)
}

/** The command lines of `pid`'s ancestors, up to init. */
async function ancestors(pid: number): Promise<string[]> {
  const out: string[] = []
  let current = pid
  while (current > 1) {
    const stat = await readFile(`/proc/${current}/stat`, 'utf8')
    current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (current > 1) out.push((await argvOf(current)).join(' '))
  }
  return out
}

async function children(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')
  return text.trim().split(/\s+/).filter(Boolean).map(Number)
}

describe('pnpm start', () => {
  it.skipIf(!pnpmHere)(
    'starts both servers from the build in the background; no pnpm or tsx stays; pnpm stop stops them',
    async () => {
      const { env, pids } = await sandbox()
      const first = await run('pnpm', ['start'], env)
      expect(first.code, first.out).toBe(0)
      const { api, chat } = started(first.out)
      pids.push(api.pid, chat.pid)

      expect(await argvOf(api.pid)).toEqual([process.execPath, BUILT_ENTRIES.api])
      expect(await argvOf(chat.pid)).toEqual([process.execPath, BUILT_ENTRIES.chat])
      // pnpm start runs both on the `node` of PATH: a supported one, after ./scripts/setup.sh (CI) its 24
      expect(nodeMajor(nodeVersionOf((await argvOf(api.pid))[0]!))).toBeGreaterThanOrEqual(
        requiredNodeMajor(),
      )
      for (const pid of [api.pid, chat.pid]) {
        expect((await ancestors(pid)).filter((cmd) => /pnpm|tsx/.test(cmd))).toEqual([])
        expect(await children(pid)).toEqual([]) // tsx would run an esbuild service beside it
      }
      expect(((await (await fetch(`${api.url}/api/status`)).json()) as { status: string }).status).toBe('ok')
      expect(((await (await fetch(`${chat.url}/api/health`)).json()) as { status: string }).status).toBe('ok')

      const again = await run('pnpm', ['start'], env)
      expect(again.code).toBe(0)
      expect(again.out).toContain('svc is already running')
      expect(started(again.out).api.pid).toBe(api.pid)

      const stop = await run('pnpm', ['stop'], env)
      expect(stop.code, stop.out).toBe(0)
      expect(alive(api.pid) || alive(chat.pid)).toBe(false)
      const log = await readFile(join(env.SVC_STATE_DIR, 'service', 'api.log'), 'utf8')
      expect(log).toContain('"msg":"stopped"')
      expect((await run('pnpm', ['stop'], env)).out).toContain('svc is not running')
    },
    120_000,
  )

  it('fails with the server’s own error and leaves nothing running when the API cannot listen', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => taken.close(() => resolve())))
    const port = (taken.address() as { port: number }).port
    const { env } = await sandbox({ SVC_PORT: String(port), SVC_CHAT_API_URL: 'http://127.0.0.1:1' })
    const r = await run(process.execPath, [START], env)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/the API exited \(1\) before it listened/)
    expect(r.out).toContain('EADDRINUSE')
    const pids = JSON.parse(
      await readFile(join(env.SVC_STATE_DIR, 'service', 'pids.json'), 'utf8').catch(() => '{}'),
    )
    expect(pids.servers ?? []).toEqual([])
    // the chat app that did start was stopped again
    await new Promise((r) => setTimeout(r, 500))
    const chatLog = await readFile(join(env.SVC_STATE_DIR, 'service', 'chat.log'), 'utf8').catch(() => '')
    if (chatLog.includes('svc chat listening')) expect(chatLog).toContain('"msg":"stopped"')
  }, 60_000)
})

describe('node scripts/start.mjs --foreground', () => {
  it('runs both servers as its children, and SIGTERM stops both with exit 0', async () => {
    const { env } = await sandbox()
    const launcher = spawnWatched(process.execPath, [START, '--foreground'], { cwd: REPO_ROOT, env })
    cleanups.push(async () => {
      await launcher.stop('SIGKILL')
    })
    const ready = { what: 'the launcher', timeoutMs: 60_000 }
    const api = await launcher.waitFor(LISTENING.api, ready)
    await launcher.waitFor(LISTENING.chat, ready)
    expect(((await (await fetch(`${api}/api/status`)).json()) as { status: string }).status).toBe('ok')
    // Two children of the one launcher, each the built server itself.
    const kids = await children(launcher.child.pid!)
    expect((await Promise.all(kids.map(argvOf))).map((a) => a.slice(1)).sort()).toEqual(
      [[BUILT_ENTRIES.api], [BUILT_ENTRIES.chat]].sort(),
    )

    expect((await launcher.stop()).code).toBe(0)
    for (const pid of kids) expect(alive(pid)).toBe(false)
    expect(launcher.output()).toMatch(/"msg":"stopped"/)
  }, 90_000)
})
