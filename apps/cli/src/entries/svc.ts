#!/usr/bin/env node
// `svc …`: the entry of the CLI's bundle (dist/svc.js) and, through tsx, of bin/svc.js.
const argv = process.argv.slice(2)
const { run } =
  argv[0] === 'serve' || argv[0] === 'chat' || argv[0] === 'auth-gate'
    ? await import('../server-cli')
    : await import('../main')
process.exitCode = await run(argv)

export {}
