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
 * once; a wrong value is a CliError (exit 2) naming the variable.
 */
export function defaultContext(env: Record<string, string | undefined> = process.env): CliContext {
  let checked: { apiUrl: string }
  try {
    checked = checkCliEnv(env)
  } catch (error) {
    throw new CliError((error as Error).message, 2)
  }
  return {
    env,
    stdout: process.stdout,
    stderr: process.stderr,
    // a getter: touching process.stdin opens it, which only `svc install` on a terminal needs
    get stdin() {
      return process.stdin
    },
    apiUrl: checked.apiUrl,
  }
}
