/**
 * The shell launcher (launcher.ts) with real processes: node as the upstream program, /bin/sh as the
 * waiting shell. What must hold for an upstream: it gets exactly its argv and environment whatever
 * characters they hold, its output lands in its log, it leads its own process group, and the next
 * launch uses a shell that was already there.
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { quote, ShellLauncher } from './launcher'
import { processIdentity } from './pid-file'

/** The upstream program of these tests: prints the argv and environment it got. */
const PRINT_ARGS = `const { env } = process; console.log(JSON.stringify({ argv: process.argv.slice(1), x: env.X_TEST, base: env.KEEP_ME ?? null, gone: env.DROP_ME ?? null }))`
const base = { PATH: '/usr/bin:/bin', KEEP_ME: 'kept', DROP_ME: 'dropped' }

let dir: string
let launcher: ShellLauncher
const children: ChildProcess[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-launcher-'))
  launcher = new ShellLauncher(base)
})

afterEach(async () => {
  launcher.close()
  for (const child of children) child.kill('SIGKILL')
  children.length = 0
  await rm(dir, { recursive: true, force: true })
})

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })

/** Launches node running `script`, output to `log`; the child is ended after the test. */
async function startNode(script: string, log: string): Promise<ChildProcess> {
  const child = await launcher.launch({
    path: process.execPath,
    args: ['-e', script],
    env: base,
    logPath: log,
  })
  children.push(child)
  return child
}

async function run(args: string[], env: Record<string, string>, log: string) {
  await writeFile(log, '')
  const child = await launcher.launch({ path: process.execPath, args, env, logPath: log })
  children.push(child)
  const code = await exited(child)
  return { child, code, out: await readFile(log, 'utf8') }
}

describe('ShellLauncher', () => {
  it('gives the program its argv and environment exactly, whatever characters they hold', async () => {
    const odd = [`it's`, 'two words', '$HOME `id` $(id) "q" \\ ;|&<>*?', 'line\nbreak', 'ünï', '']
    const { code, out } = await run(
      ['-e', PRINT_ARGS, ...odd],
      { ...base, X_TEST: `a 'b' $c\n"d"` },
      join(dir, 'a.log'),
    )
    expect(code).toBe(0)
    const seen = JSON.parse(out.trim())
    expect(seen.argv).toEqual(odd)
    expect(seen.x).toBe(`a 'b' $c\n"d"`)
  })

  it('unsets what the waiting shell has and the upstream must not get', async () => {
    const { DROP_ME: _, ...env } = base
    const { out } = await run(['-e', PRINT_ARGS], env, join(dir, 'b.log'))
    expect(JSON.parse(out.trim())).toMatchObject({ base: 'kept', gone: null })
  })

  it('appends the output to the log, stderr included, and keeps what was there', async () => {
    const log = join(dir, 'c.log')
    await writeFile(log, 'before\n')
    await exited(await startNode('console.log("out"); console.error("err")', log))
    expect(await readFile(log, 'utf8')).toBe('before\nout\nerr\n')
  })

  it('makes the program lead its own process group, under the pid it was given', async () => {
    const child = await startNode('setTimeout(() => {}, 30000)', join(dir, 'd.log'))
    const deadline = Date.now() + 5_000
    // Once the shell has exec'd, the pid's program is node.
    while (!readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('setTimeout')) {
      if (Date.now() > deadline) throw new Error('the shell never became the program')
      await new Promise((r) => setTimeout(r, 10))
    }
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
    expect(pgrp).toBe(child.pid)
    process.kill(-child.pid!, 'SIGTERM')
    expect(await exited(child)).toBeNull()
  })

  it('launches the second program in a shell that was waiting before it was asked for', async () => {
    await run(['-e', '0'], base, join(dir, 'e.log'))
    await new Promise((r) => setTimeout(r, 300)) // the next shell is spawned meanwhile
    // A process's start time in /proc is in clock ticks (10 ms) since boot, as /proc/uptime is in s.
    const askedAt = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 100
    const child = await startNode('0', join(dir, 'f.log'))
    const startedAt = processIdentity(child.pid!)?.startTicks
    expect(await exited(child)).toBe(0)
    expect(startedAt).toBeLessThan(askedAt - 10) // at least 100 ms before it was asked for
  })

  it('still launches when the waiting shell died meanwhile', async () => {
    await run(['-e', '0'], base, join(dir, 'g.log'))
    await new Promise((r) => setTimeout(r, 300))
    const waiting = (launcher as unknown as { ready: ChildProcess | null }).ready
    expect(waiting).not.toBeNull()
    waiting!.kill('SIGKILL')
    await exited(waiting!)
    const { code, out } = await run(['-e', 'console.log("fresh")'], base, join(dir, 'h.log'))
    expect(code).toBe(0)
    expect(out).toBe('fresh\n')
  })

  it('a waiting shell killed just as it is used: that launch exits, nothing throws', async () => {
    await run(['-e', '0'], base, join(dir, 'k.log'))
    await new Promise((r) => setTimeout(r, 300))
    const waiting = (launcher as unknown as { ready: ChildProcess | null }).ready!
    waiting.kill('SIGKILL')
    // Dead (a zombie) before the launch, with no event-loop turn between: Node has not seen its exit,
    // so the launch takes it and its line meets a closed pipe.
    const state = () => {
      const stat = readFileSync(`/proc/${waiting.pid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    }
    const deadline = Date.now() + 5_000
    while (state() !== 'Z' && Date.now() < deadline);
    expect(state()).toBe('Z')
    const child = await startNode('0', join(dir, 'l.log'))
    expect(child).toBe(waiting)
    await exited(child)
    expect(child.signalCode).toBe('SIGKILL')
    const { code } = await run(['-e', '0'], base, join(dir, 'm.log'))
    expect(code).toBe(0)
  })

  it('a program that cannot run exits 126 or 127 with the reason in its log', async () => {
    const log = join(dir, 'i.log')
    await writeFile(log, '')
    const child = await launcher.launch({ path: join(dir, 'missing'), args: [], env: base, logPath: log })
    children.push(child)
    expect([126, 127]).toContain(await exited(child))
    expect(await readFile(log, 'utf8')).toMatch(/missing/)
  })

  it('refuses an environment name a shell cannot export', async () => {
    await expect(
      launcher.launch({
        path: process.execPath,
        args: [],
        env: { ...base, 'A-B': '1' },
        logPath: join(dir, 'j.log'),
      }),
    ).rejects.toThrow(/cannot pass/)
  })
})

describe('quote', () => {
  it('makes one shell word of anything', () => {
    expect(quote(`a'b`)).toBe(`'a'\\''b'`)
    expect(quote('')).toBe(`''`)
  })
})
