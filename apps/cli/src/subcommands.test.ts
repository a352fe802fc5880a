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

describe('runSubcommand', () => {
  const calls: string[][] = []
  const run = runSubcommand('Usage: svc thing <do>', {
    do: async (args) => {
      calls.push(args)
      return 0
    },
  })

  it('runs the named subcommand with the arguments after its name', async () => {
    const { ctx, stderr } = context()
    expect(await run(['do', 'a', '--b'], ctx)).toBe(0)
    expect(calls).toEqual([['a', '--b']])
    expect(stderr()).toBe('')
  })

  it.each([[[]], [['nope']], [['toString']]])('prints the help and exits 2 for %j', async (args) => {
    const { ctx, stderr } = context()
    expect(await run(args, ctx)).toBe(2)
    await new Promise((r) => setImmediate(r))
    expect(stderr()).toBe('Usage: svc thing <do>\n')
  })
})
