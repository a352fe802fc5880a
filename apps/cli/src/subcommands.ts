import type { CliContext, Command } from './context'

/** What one subcommand does with the arguments after its name; resolves with the exit status. */
export type Subcommand = (args: string[], ctx: CliContext) => Promise<number>

/**
 * The `run` of a command made of subcommands (`svc slot load …`, `svc token ls`): the first argument
 * picks one of `subcommands` and gets the rest; none, or a name not among them, prints `help` on
 * stderr and exits 2 (a usage error).
 */
export function runSubcommand(help: string, subcommands: Record<string, Subcommand>): Command['run'] {
  return async (args, ctx) => {
    const [name, ...rest] = args
    const subcommand = name !== undefined && Object.hasOwn(subcommands, name) ? subcommands[name] : undefined
    if (!subcommand) {
      ctx.stderr.write(`${help}\n`)
      return 2
    }
    return subcommand(rest, ctx)
  }
}
