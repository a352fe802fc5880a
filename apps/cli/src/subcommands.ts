import type { CliContext, Command } from './context'
import { suggestion } from './did-you-mean'

/** What one subcommand does with the arguments after its name; resolves with the exit status. */
export type Subcommand = (args: string[], ctx: CliContext) => Promise<number>

/**
 * The `run` of a command made of subcommands (`svc slot load …`, `svc token ls`): the first argument
 * picks one of `subcommands` and gets the rest. None prints `help` on stderr and exits 2; a name not
 * among them is one line, `svc slot: unknown command "lss" (did you mean "ls"?)`, and a pointer to
 * the help, exit 2 (a usage error).
 */
export function runSubcommand(
  command: string,
  help: string,
  subcommands: Record<string, Subcommand>,
): Command['run'] {
  return async (args, ctx) => {
    const [name, ...rest] = args
    const subcommand = name !== undefined && Object.hasOwn(subcommands, name) ? subcommands[name] : undefined
    if (name === undefined) {
      ctx.stderr.write(`${help}\n`)
      return 2
    }
    if (!subcommand) {
      const near = suggestion(name, Object.keys(subcommands))
      ctx.stderr.write(
        `${command}: unknown command "${name}"${near}\nRun '${command} --help' for its commands.\n`,
      )
      return 2
    }
    return subcommand(rest, ctx)
  }
}
