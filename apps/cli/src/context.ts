import type { Readable, Writable } from 'node:stream'
import { checkCliEnv } from './cli-env'

/** What every command gets: its streams and env, injected so tests run commands in-process. */
export interface CliContext {
  env: Record<string, string | undefined>
  stdout: Writable & { isTTY?: boolean }
  stderr: Writable & { isTTY?: boolean }
  /** For questions on a terminal (`svc install` asks for the admin password); absent in tests. */
  stdin?: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }
  /** Base URL of a running API (`SVC_API_URL`, default http://127.0.0.1:8080). */
  apiUrl: string
}

export interface Command {
  name: string
  summary: string
  /** Full help text printed by `svc <name> --help`. */
  help: string
  /** Talks to the API: takes `--url URL` (else `SVC_API_URL`) anywhere among its arguments. */
  api?: boolean
  run(args: string[], ctx: CliContext): Promise<number>
}

/** A failure meant for the user: printed as `svc: <message>` and exits with `code`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message)
  }
}

/**
 * A mistake in how a command was typed (an unknown option or subcommand, a missing value): printed as
 * one line `<command>: <message>` (`svc slot load: unknown option --modle (did you mean --model?)`),
 * then `usage` when given, and exits 2. Never a stack trace.
 */
export class UsageError extends CliError {
  constructor(
    /** The command as typed up to the mistake: `svc slot load`. */
    readonly command: string,
    message: string,
    /** A short usage hint for the next line (`usage: svc slot load <slot> …`). */
    readonly usage?: string,
  ) {
    super(message, 2)
  }
}

/**
 * Makes `env` this process's environment, for a server started in this process (`svc serve`, `svc
 * chat`): each server reads the process's environment once, at its start. With `defaultContext` the
 * CLI's one place that touches it.
 */
export function handToServer(env: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
}

/**
 * The CLI's environment reader: the process's environment, its own variables (env-variables.ts) checked
 * once; a wrong value is a CliError (exit 2) naming the variable. With `check: false` (help, which must
 * show even when a variable is wrong: it is how people find the right value) the check waits until
 * something reads `apiUrl`.
 */
export function defaultContext(
  env: Record<string, string | undefined> = process.env,
  options: { check?: boolean } = {},
): CliContext {
  const check = () => {
    try {
      return checkCliEnv(env)
    } catch (error) {
      throw new CliError((error as Error).message, 2)
    }
  }
  let checked = options.check === false ? undefined : check()
  return {
    env,
    stdout: process.stdout,
    stderr: process.stderr,
    // a getter: touching process.stdin opens it, which only `svc install` on a terminal needs
    get stdin() {
      return process.stdin
    },
    get apiUrl() {
      checked ??= check()
      return checked.apiUrl
    },
  }
}

/** Whether `argv` asks only for help: no command, `help …`, or `--help`/`-h` anywhere. */
export function asksForHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.some((a) => a === '--help' || a === '-h')
}
