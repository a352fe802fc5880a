import { SVC_VERSION } from '@svc/core/node'
import { type CliContext, CliError, type Command } from './context'

function usage(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return `Usage: svc <command> [options]

svc is a self-hosted model server. This command line talks to a running svc API
(SVC_API_URL, default http://127.0.0.1:8080) or, where it says so, to the config dir.

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run 'svc <command> --help' for the options of one command.
`
}

/** Runs one of `commands` with `argv` (without node and script); resolves with the exit code. */
export async function runCommands(commands: Command[], argv: string[], ctx: CliContext): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(usage(commands))
    return name ? 0 : 2
  }
  if (name === '--version' || name === '-v') {
    ctx.stdout.write(`svc ${SVC_VERSION}\n`)
    return 0
  }
  const command = commands.find((c) => c.name === name)
  if (!command) {
    ctx.stderr.write(`svc: unknown command "${name}"\n\n${usage(commands)}`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    ctx.stdout.write(`${command.help}\n`)
    return 0
  }
  try {
    return await command.run(rest, ctx)
  } catch (error) {
    if (error instanceof CliError) {
      ctx.stderr.write(`svc: ${error.message}\n`)
      return error.code
    }
    throw error
  }
}
