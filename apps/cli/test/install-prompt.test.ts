/**
 * Without SVC_ADMIN_PASSWORD, `svc install --auth=basic` asks on the terminal, twice, and
 * shows nothing of what is typed. A real pseudo-terminal (util-linux `script`) stands in for a person.
 */
import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { missingPart, SVC_CLI } from '@svc/testing'
import bcrypt from 'bcryptjs'
import { describe, expect, it } from 'vitest'
import { shellQuote, which } from '../src/install/exec'
import { stagingRoot } from './install-harness'

const skip = which('script', process.env.PATH) ? undefined : missingPart('script', 'apt-get install bsdutils')

/** Runs the installer on a terminal and types each answer once its prompt appears. */
function onTerminal(args: string[], answers: Array<[prompt: string, reply: string]>) {
  const child = spawn('script', ['-qfec', shellQuote([process.execPath, SVC_CLI, ...args]), '/dev/null'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOSTNAME: 'svc-tty.local', TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let screen = ''
  let next = 0
  child.stdout.on('data', (d: Buffer) => {
    screen += d.toString()
    const answer = answers[next]
    if (answer && screen.split(answer[0]).length - 1 > countPrompts(answers, next)) {
      next++
      child.stdin.write(`${answer[1]}\r`)
    }
  })
  return new Promise<{ code: number | null; screen: string }>((resolve) =>
    child.once('exit', (code) => {
      child.stdin.end()
      resolve({ code, screen })
    }),
  )
}

/** How many of the answers before `index` share its prompt (so each prompt is answered once). */
function countPrompts(answers: Array<[string, string]>, index: number): number {
  return answers.slice(0, index).filter(([p]) => p === answers[index]![0]).length
}

describe.skipIf(skip)('the password prompt', () => {
  it('asks twice, echoes nothing, and writes only the bcrypt hash', async () => {
    await using root = await stagingRoot()
    const typed = 'typed on a terminal 7'
    const r = await onTerminal(
      ['install', '--auth=basic', '--root', root.dir],
      [
        ['Admin password: ', typed],
        ['Again: ', typed],
      ],
    )
    expect(r.screen).toContain('Admin password: ')
    expect(r.screen).toContain('Again: ')
    expect(r.screen).not.toContain(typed)
    expect(r.code).toBe(0)
    const hash = /^admin:(\$2b\$\S+)$/m.exec(await root.read('/etc/svc/admin.htpasswd'))?.[1] ?? ''
    expect(await bcrypt.compare(typed, hash)).toBe(true)
    for (const f of await readdir(root.path('/etc/svc'), { recursive: true, withFileTypes: true })) {
      if (f.isFile()) expect(await readFile(join(f.parentPath, f.name), 'utf8')).not.toContain(typed)
    }
  })

  it('stops when the two answers differ, before changing anything', async () => {
    await using root = await stagingRoot()
    const r = await onTerminal(
      ['install', '--auth=basic', '--root', root.dir],
      [
        ['Admin password: ', 'first answer 1'],
        ['Again: ', 'second answer 2'],
      ],
    )
    expect(r.code).toBe(2)
    expect(r.screen).toContain('the two passwords differ')
    expect(await readdir(root.path('/etc'))).not.toContain('svc')
  })
})
