/**
 * `node:util`'s parseArgs for a command's options, with its refusals as a `UsageError`: one line
 * naming the command and the option (with the nearest known option when it looks like a typo), and
 * the command's usage, instead of Node's `ERR_PARSE_ARGS_*` stack trace.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { UsageError } from './context'
import { suggestion } from './did-you-mean'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * Parses `args` strictly against `options` (positionals allowed unless `positionals: false`).
 * Throws `UsageError(command, …, usage)`: "unknown option --modle (did you mean --model?)",
 * "--model needs a value", "unexpected argument x".
 */
export function parseOptions<const O extends Options>(
  command: string,
  usage: string,
  args: string[],
  options: O,
  config: { positionals?: boolean } = {},
) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: config.positionals ?? true })
  } catch (error) {
    throw usageErrorOf(error, command, usage, Object.keys(options)) ?? error
  }
}

/** Node's parseArgs refusal as a UsageError; undefined for any other error. */
export function usageErrorOf(
  error: unknown,
  command: string,
  usage: string | undefined,
  known: readonly string[] = [],
): UsageError | undefined {
  const code = (error as { code?: unknown }).code
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) return undefined
  const message = (error as Error).message
  // Node names the option in quotes: "Unknown option '--modle'", "Option '-m, --model <value>' argument missing"
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? ''
  const flag = /--?[\w-]+/.exec(quoted)?.[0] ?? quoted
  const long = /--[\w-]+/.exec(quoted)?.[0] ?? flag
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(
        command,
        `unknown option ${flag}${suggestion(
          flag,
          known.map((k) => `--${k}`),
          false,
        )}`,
        usage,
      )
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(
        command,
        /argument missing/.test(message) ? `${long} needs a value` : `${long} takes no value`,
        usage,
      )
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(command, `unexpected argument ${quoted || '(unknown)'}`, usage)
    default:
      return new UsageError(command, message.split('\n')[0] ?? message, usage)
  }
}
