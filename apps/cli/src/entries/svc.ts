#!/usr/bin/env node
// `svc …`: the entry of the CLI's bundle (dist/svc.js) and, through tsx, of bin/svc.js.
import { asksForHelp, type CliContext, CliError, defaultContext } from '../context'

const argv = process.argv.slice(2)
const { run } =
  argv[0] === 'serve' || argv[0] === 'chat' || argv[0] === 'auth-gate'
    ? await import('../server-cli')
    : await import('../main')
let ctx: CliContext
try {
  // the environment, read and checked once (help shows whatever it holds)
  ctx = defaultContext(undefined, { check: !asksForHelp(argv) })
} catch (error) {
  if (!(error instanceof CliError)) throw error
  process.stderr.write(`svc: ${error.message}\n`)
  process.exit(error.code)
}
process.exitCode = await run(argv, ctx)
