import { chatCommand } from './commands/chat'
import { enginesCommand } from './commands/engines'
import { manifestCommand } from './commands/manifest'
import { modelsCommand } from './commands/models'
import { serveCommand } from './commands/serve'
import { slotCommand } from './commands/slot'
import { statusCommand } from './commands/status'
import { tokenCommand } from './commands/token'
import { type CliContext, CliError, type Command, defaultContext } from './context'
import { installCommand } from './install/install-command'

/** Every top-level command. Subcommands (`slot load`, `token create`) live inside their command. */
export const COMMANDS: Command[] = [
  statusCommand,
  slotCommand,
  modelsCommand,
  enginesCommand,
  manifestCommand,
  tokenCommand,
  chatCommand,
  serveCommand,
  installCommand,
]

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length))
  return `Usage: svc <command> [options]

svc is a self-hosted model server. This command line talks to a running svc API
(SVC_API_URL, default http://127.0.0.1:8080) or, where it says so, to the config dir.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run 'svc <command> --help' for the options of one command.
`
}

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function run(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout.write(usage())
    return name ? 0 : 2
  }
  if (name === '--version' || name === '-v') {
    ctx.stdout.write('svc 0.1.0\n')
    return 0
  }
  const command = COMMANDS.find((c) => c.name === name)
  if (!command) {
    ctx.stderr.write(`svc: unknown command "${name}"\n\n${usage()}`)
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
