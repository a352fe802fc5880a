import { authGateCommand } from './commands/auth-gate'
import { chatCommand } from './commands/chat'
import { doctorCommand } from './commands/doctor'
import { enginesCommand } from './commands/engines'
import { manifestCommand } from './commands/manifest'
import { modelsCommand } from './commands/models'
import { presetsCommand } from './commands/presets'
import { serveCommand } from './commands/serve'
import { slotCommand } from './commands/slot'
import { startCommand, stopCommand } from './commands/start'
import { statusCommand } from './commands/status'
import { tokenCommand } from './commands/token'
import { usageCommand } from './commands/usage'
import { type CliContext, type Command, defaultContext } from './context'
import { installCommand } from './install/install-command'
import { runCommands } from './run-commands'

/** Every top-level command. Subcommands (`slot load`, `token create`) live inside their command. */
export const COMMANDS: Command[] = [
  statusCommand,
  slotCommand,
  modelsCommand,
  presetsCommand,
  enginesCommand,
  manifestCommand,
  tokenCommand,
  usageCommand,
  chatCommand,
  serveCommand,
  authGateCommand,
  startCommand,
  stopCommand,
  installCommand,
  doctorCommand,
]

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export function run(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  return runCommands(COMMANDS, argv, ctx)
}
