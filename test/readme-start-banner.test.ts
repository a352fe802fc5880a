/**
 * README.md's first command, `pnpm start`, as a person runs it (auth off, so the API listens on
 * every interface): its banner names the addresses a person opens — `http://localhost:<port>/` for
 * the dashboard and API, the machine's LAN addresses, `http://127.0.0.1:<port>/` for the chat app
 * and why it is local only — never the `0.0.0.0` the API binds; each address it prints answers.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt, loopbackEnv, REPO_ROOT } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const START = join(REPO_ROOT, 'scripts/start.mjs')
let dir: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  await ensureBuilt('api', 'chat', 'cli')
  dir = await mkdtemp(join(tmpdir(), 'svc-banner-'))
  // The user's defaults: no SVC_HOST (auth off: every interface), the chat app's own default host.
  const { SVC_HOST: _, SVC_CHAT_HOST: __, ...sandbox } = loopbackEnv(dir)
  const { SVC_HOST: _h, SVC_CHAT_HOST: _c, SVC_AUTH: _a, SVC_API_URL: _u, ...inherited } = process.env
  env = { ...inherited, ...sandbox }
}, 120_000)

afterAll(async () => {
  await run([START, '--stop'])
  for (const pid of startedPids()) if (alive(pid)) process.kill(pid, 'SIGKILL')
  await rm(dir, { recursive: true, force: true })
})

function run(args: string[]) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, args, { cwd: REPO_ROOT, env, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: stdout + stderr })
    })
  })
}

function startedPids(): number[] {
  try {
    const file = join(dir, 'state', 'service', 'pids.json')
    return (JSON.parse(readFileSync(file, 'utf8')) as { servers: { pid: number }[] }).servers.map(
      (s) => s.pid,
    )
  } catch {
    return []
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** This machine's IPv4 addresses that other machines may reach (not loopback, not a container bridge). */
function lanHere(): string[] {
  return Object.entries(networkInterfaces())
    .filter(([name]) => !/^(docker|br-|veth|virbr|cni|flannel|podman|lxc)/.test(name))
    .flatMap(([, infos]) => infos ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal && !i.address.startsWith('169.254.'))
    .map((i) => i.address)
}

describe('pnpm start’s banner', () => {
  it('prints the addresses a person opens, never 0.0.0.0, and each of them answers', async () => {
    const started = await run([START])
    expect(started.code, started.out).toBe(0)
    const out = started.out
    expect(out).not.toContain('0.0.0.0')

    const api = /^ {2}Dashboard and API\s+http:\/\/localhost:(\d+)\/\s+\(pid \d+/m.exec(out)
    expect(api, out).not.toBeNull()
    const port = api![1]
    const res = await fetch(`http://localhost:${port}/api/status`)
    expect(((await res.json()) as { status: string }).status).toBe('ok')

    const lan = [...out.matchAll(/^\s+(http:\/\/[\d.]+:\d+\/)\s+\(from other machines\)$/gm)].map(
      (m) => m[1]!,
    )
    expect(lan).toEqual(lanHere().map((ip) => `http://${ip}:${port}/`))
    for (const url of lan) {
      const status = (await (await fetch(`${url}api/status`)).json()) as { status: string }
      expect(status.status, url).toBe('ok')
    }

    const chat = /^ {2}Chat app\s+(http:\/\/127\.0\.0\.1:\d+\/)\s+\(pid \d+/m.exec(out)
    expect(chat, out).not.toBeNull()
    const health = (await (await fetch(`${chat![1]}api/health`)).json()) as { status: string }
    expect(health.status).toBe('ok')
    expect(out).toMatch(
      /chat app answers on this machine only: it takes whoever reaches it as the one local user/,
    )
    expect(out).toContain('docs/chat.md')
    expect(out).toMatch(/Stop it with: pnpm stop/)

    const stop = await run([START, '--stop'])
    expect(stop.code, stop.out).toBe(0)
  }, 120_000)
})
