/**
 * `svc serve`, `svc chat` and `svc auth-gate` on their own: the installed services run these, and the server then
 * lives in the same process, so nothing else the CLI could load (the installer, dockerode, the
 * engine builds) takes memory there.
 */
import { authGateCommand } from './commands/auth-gate'
import { chatCommand } from './commands/chat'
import { serveCommand } from './commands/serve'
import { type CliContext, defaultContext } from './context'
import { runCommands } from './run-commands'

export const SERVER_COMMANDS = [serveCommand, chatCommand, authGateCommand]

export function run(argv: string[], ctx: CliContext = defaultContext()): Promise<number> {
  return runCommands(SERVER_COMMANDS, argv, ctx)
}
