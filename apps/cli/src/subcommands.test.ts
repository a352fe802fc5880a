import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { CliContext } from './context'
import { runSubcommand } from './subcommands'

function context() {
  const stderr = new PassThrough()
  let err = ''
  stderr.on('data', (chunk) => {
    err += chunk
  })
  const ctx: CliContext = { env: {}, stdout: new PassThrough(), stderr, apiUrl: 'http://127.0.0.1:1' }
  return { ctx, stderr: () => err }
}

const settle = () => new Promise((r) => setImmediate(r))

describe('runSubcommand', () => {
  const calls: string[][] = []
  const run = runSubcommand('svc thing', 'Usage: svc thing <do>', {
    do: async (args) => {
      calls.push(args)
      return 0
    },
    list: async () => 0,
  })

  it('runs the named subcommand with the arguments after its name', async () => {
    const { ctx, stderr } = context()
    expect(await run(['do', 'a', '--b'], ctx)).toBe(0)
    expect(calls).toEqual([['a', '--b']])
    expect(stderr()).toBe('')
  })

  it('prints the help and exits 2 without a subcommand', async () => {
    const { ctx, stderr } = context()
    expect(await run([], ctx)).toBe(2)
    await settle()
    expect(stderr()).toBe('Usage: svc thing <do>\n')
  })

  it.each([
    ['lists', ' (did you mean "list"?)'],
    ['nope', ''],
    ['toString', ''],
  ])('says "unknown command" for %j, with the nearest name, and exits 2', async (name, near) => {
    const { ctx, stderr } = context()
    expect(await run([name], ctx)).toBe(2)
    await settle()
    expect(stderr()).toBe(
      `svc thing: unknown command "${name}"${near}\nRun 'svc thing --help' for its commands.\n`,
    )
  })
})
