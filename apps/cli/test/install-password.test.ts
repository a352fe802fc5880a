/**
 * The admin password never shows in `ps`. `sudo SVC_ADMIN_PASSWORD=… svc install` puts it into
 * sudo's arguments, which every local user can read; so the installer takes it from a file or from
 * standard input, and no program it runs gets it in its arguments or its environment. Every program
 * the installer runs (caddy, systemd-sysusers, systemctl, ldd) goes through a shim on PATH that
 * records its arguments and environment and then runs the real one; /proc is watched as well.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingPart, SVC_CLI } from '@svc/testing'
import bcrypt from 'bcryptjs'
import { describe, expect, it } from 'vitest'
import { which } from '../src/install/exec'
import { stagingRoot } from './install-harness'

/** Unique to this run: other install tests on this machine may have the harness's in their env. */
const PASSWORD = `pw in no ps ${randomBytes(9).toString('base64url')}`

const PROGRAMS = ['caddy', 'systemd-sysusers', 'systemctl', 'ldd']
const missing = PROGRAMS.filter((t) => !which(t, process.env.PATH))
const skip = missing.length ? missingPart(missing.join(', '), 'apt-get install caddy systemd') : undefined

/** A directory of shims that log `argv` and the environment to `log`, then exec the real program. */
async function shims(): Promise<{ path: string; log: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-shims-'))
  const log = join(dir, 'calls.log')
  for (const name of PROGRAMS) {
    const real = which(name, process.env.PATH)!
    await writeFile(
      join(dir, name),
      `#!/bin/sh\n{ printf 'argv: %s\\n' "$0 $*"; env; } >> '${log}'\nexec '${real}' "$@"\n`,
    )
    await chmod(join(dir, name), 0o755)
  }
  return {
    path: `${dir}:${process.env.PATH}`,
    log,
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}

/** The cmdline and environ of every process but `except`, read every 20 ms until `stop`. */
function watchProcesses(except: () => number | undefined) {
  const seen = new Set<string>()
  let running = true
  const loop = (async () => {
    while (running) {
      for (const pid of await readdir('/proc').catch(() => [])) {
        if (!/^\d+$/.test(pid) || Number(pid) === except() || Number(pid) === process.pid) continue
        for (const f of ['cmdline', 'environ'])
          seen.add(await readFile(`/proc/${pid}/${f}`, 'latin1').catch(() => ''))
      }
      await new Promise((r) => setTimeout(r, 20))
    }
  })()
  return {
    async stop(): Promise<string[]> {
      running = false
      await loop
      return [...seen]
    },
  }
}

/** Runs the installer with `env` and `stdin`; watches /proc while it runs. */
async function install(args: string[], env: Record<string, string>, stdin = '') {
  const child = spawn(process.execPath, [SVC_CLI, 'install', ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const watch = watchProcesses(() => child.pid)
  let out = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stdin.end(stdin)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, out, seen: await watch.stop() }
}

describe.skipIf(skip)('svc install: the admin password is in no process list', () => {
  it.each([
    ['--admin-password-file', 'file'],
    ['--admin-password-stdin', 'stdin'],
  ])('%s: installs with it, and no program gets it in its arguments or environment', async (_flag, how) => {
    await using root = await stagingRoot()
    const sh = await shims()
    const dir = await mkdtemp(join(tmpdir(), 'svc-pw-'))
    try {
      const file = join(dir, 'admin-password')
      await writeFile(file, `${PASSWORD}\n`, { mode: 0o600 })
      const args = ['--auth=basic', '--root', root.dir]
      const env = { PATH: sh.path, HOME: process.env.HOME ?? '/root', SVC_HOSTNAME: 'svc-pw.local' }
      const r =
        how === 'file'
          ? await install([...args, '--admin-password-file', file], env)
          : await install([...args, '--admin-password-stdin'], env, `${PASSWORD}\n`)
      expect(r.code, r.out).toBe(0)
      const hash = /^admin:(\$2b\$\S+)$/m.exec(await root.read('/etc/svc/admin.htpasswd'))?.[1] ?? ''
      expect(await bcrypt.compare(PASSWORD, hash)).toBe(true) // the final newline is not part of it

      const calls = await readFile(sh.log, 'utf8')
      expect(calls).toMatch(/argv: \S+\/caddy validate/) // the shims did see the installer's programs
      expect(calls).not.toContain(PASSWORD)
      expect(r.seen.filter((s) => s.includes(PASSWORD))).toEqual([])
      expect(r.out).not.toContain(PASSWORD)
    } finally {
      await rm(dir, { recursive: true, force: true })
      await sh.dispose()
    }
  })

  it('SVC_ADMIN_PASSWORD still works, and the programs the installer runs do not inherit it', async () => {
    await using root = await stagingRoot()
    const sh = await shims()
    try {
      const env = {
        PATH: sh.path,
        HOME: process.env.HOME ?? '/root',
        SVC_HOSTNAME: 'svc-pw.local',
        SVC_ADMIN_PASSWORD: PASSWORD,
      }
      const r = await install(['--auth=basic', '--root', root.dir], env)
      expect(r.code, r.out).toBe(0)
      const calls = await readFile(sh.log, 'utf8')
      expect(calls).toContain('argv: ')
      expect(calls).not.toContain(PASSWORD)
      expect(calls).not.toContain('SVC_ADMIN_PASSWORD')
    } finally {
      await sh.dispose()
    }
  })

  it('refuses two sources, an unreadable file and a short password, before changing anything', async () => {
    await using root = await stagingRoot()
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      SVC_HOSTNAME: 'svc-pw.local',
    }
    const base = ['--auth=basic', '--root', root.dir]
    const cases: Array<[string[], Record<string, string>, string, string]> = [
      [['--admin-password-stdin', '--admin-password-file', '/x'], {}, '', 'exclude each other'],
      [
        ['--admin-password-stdin'],
        { SVC_ADMIN_PASSWORD: PASSWORD },
        PASSWORD,
        'give the admin password one way',
      ],
      [
        ['--admin-password-file', '/nonexistent/pw'],
        {},
        '',
        'cannot read the admin password from /nonexistent/pw',
      ],
      [['--admin-password-stdin'], {}, 'short\n', 'at least 8 characters'],
    ]
    for (const [flags, extra, stdin, message] of cases) {
      const r = await install([...base, ...flags], { ...env, ...extra }, stdin)
      expect([r.code, r.out]).toEqual([2, expect.stringContaining(message)])
    }
    expect(await readdir(root.path('/etc'))).not.toContain('svc')
  })
})
