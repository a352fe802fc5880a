import { SVC_VERSION } from '@svc/core/node'
import { apiUrlOf } from './cli-env'
import { type CliContext, CliError, type Command, UsageError } from './context'
import { suggestion } from './did-you-mean'
import { usageErrorOf } from './parse-options'

function usage(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return `Usage: svc <command> [options]

svc is a self-hosted model server. This command line talks to a running svc API
(--url URL, else SVC_API_URL, default http://127.0.0.1:8080) or, where it says so, to the config dir.

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run 'svc <command> --help' for the options of one command.
`
}

/**
 * Runs one of `commands` with `argv` (without node and script); resolves with the exit code. A
 * command that talks to the API takes `--url URL` anywhere (before a `--`), which wins over
 * `SVC_API_URL`. Typing mistakes (an unknown command or option) are one line and exit 2.
 */
export async function runCommands(commands: Command[], argv: string[], ctx: CliContext): Promise<number> {
  let url: string | undefined
  let rest: string[]
  let name: string | undefined
  try {
    ;({ url, rest: argv } = takeUrl(argv))
    ;[name, ...rest] = argv
  } catch (error) {
    return report(error, ctx)
  }
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
    const near = suggestion(
      name,
      commands.map((c) => c.name),
    )
    ctx.stderr.write(`svc: unknown command "${name}"${near}\nRun 'svc --help' for the list of commands.\n`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    ctx.stdout.write(`${command.help}\n`)
    return 0
  }
  try {
    if (url !== undefined && !command.api)
      throw new UsageError(`svc ${name}`, '--url is for commands that talk to the API; this one does not')
    return await command.run(rest, url === undefined ? ctx : withApiUrl(ctx, url))
  } catch (error) {
    return report(error, ctx, `svc ${name}`)
  }
}

function report(error: unknown, ctx: CliContext, command = 'svc'): number {
  const typed = error instanceof UsageError ? error : usageErrorOf(error, command, undefined)
  if (typed) {
    ctx.stderr.write(`${typed.command}: ${typed.message}\n${typed.usage ? `${typed.usage}\n` : ''}`)
    return typed.code
  }
  if (error instanceof CliError) {
    ctx.stderr.write(`svc: ${error.message}\n`)
    return error.code
  }
  throw error
}

/** `--url URL` / `--url=URL` taken out of `argv` (up to a `--`); the last one wins. */
function takeUrl(argv: string[]): { url: string | undefined; rest: string[] } {
  let url: string | undefined
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === '--url' || arg.startsWith('--url=')) {
      const value = arg === '--url' ? argv[++i] : arg.slice('--url='.length)
      if (!value || value.startsWith('-'))
        throw new UsageError('svc', '--url needs a value (http(s)://host:port)')
      try {
        url = apiUrlOf({ SVC_API_URL: value })
      } catch {
        throw new UsageError('svc', `--url must be an http(s) URL, got "${value}"`)
      }
      continue
    }
    rest.push(arg)
  }
  return { url, rest }
}

/** `ctx` talking to `apiUrl` instead (its other getters stay lazy: stdin is not opened). */
function withApiUrl(ctx: CliContext, apiUrl: string): CliContext {
  return Object.create(ctx, { apiUrl: { value: apiUrl, enumerable: true } }) as CliContext
}
