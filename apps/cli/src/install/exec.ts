import { spawn } from 'node:child_process'
import { findOnPath } from '@svc/engines'

export interface CommandResult {
  code: number | null
  /** stdout and stderr interleaved as they came. */
  output: string
}

/**
 * Runs `argv` without a shell and collects its output; resolves with the exit code, never throws on
 * a failing command (a missing program is code null with the error as output).
 */
export function runCommand(
  argv: string[],
  options: { env: Record<string, string | undefined>; cwd?: string },
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv
    if (!cmd) return resolve({ code: null, output: 'empty command' })
    let output = ''
    const child = spawn(cmd, args, {
      env: options.env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.once('error', (error) => resolve({ code: null, output: `${output}${error.message}` }))
    child.once('close', (code) => resolve({ code, output }))
  })
}

/** The first executable `name` on `PATH` (only PATH: a PATH without package managers has none). */
export function which(name: string, path: string | undefined): string | undefined {
  return findOnPath(name, path)
}

/** `argv` as a person would type it (for messages and `--dry-run`). */
export function shellQuote(argv: string[]): string {
  return argv
    .map((a) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`))
    .join(' ')
}
