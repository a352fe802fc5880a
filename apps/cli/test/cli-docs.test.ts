/**
 * docs/cli.md lists every command the CLI has (its command table, `COMMANDS`), and no command it
 * does not have, so the page cannot drift from `svc --help`.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../src/main'

const DOC = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8')
/** The first fenced block: one line (or more) per command, each starting `svc <command>`. */
const BLOCK = /```\n([\s\S]*?)```/.exec(DOC)?.[1] ?? ''
const documented = new Set([...BLOCK.matchAll(/(?:^|\| )svc ([a-z][a-z-]*)/gm)].map((m) => m[1]))

describe('docs/cli.md', () => {
  it('lists every command of the CLI', () => {
    const missing = COMMANDS.map((c) => c.name).filter((name) => !documented.has(name))
    expect(missing, 'commands svc has that docs/cli.md does not list').toEqual([])
  })

  it('lists no command the CLI does not have', () => {
    const names = new Set(COMMANDS.map((c) => c.name))
    expect([...documented].filter((name) => !names.has(name!))).toEqual([])
  })
})
