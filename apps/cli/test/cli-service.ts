/**
 * A service as its systemd unit runs it: `node apps/cli/bin/svc.js <subcommand>` in the foreground,
 * with exactly the environment its env file gives (plus PATH and HOME), until SIGTERM.
 */
import { type ServerProcess, SVC_CLI, startServerProcess } from '@svc/testing'

/** The service's process; `stop()` sends SIGTERM and resolves with the exit code (0: a clean stop). */
export type CliService = ServerProcess

/**
 * Starts `svc <subcommand>` and resolves once a log line matches `ready` (its first group is the
 * URL it listens on); rejects with the output when it exits first or the deadline passes.
 */
export async function startCliService(options: {
  subcommand: string
  env: Record<string, string>
  ready: RegExp
  cwd?: string
  timeoutMs?: number
  /** Runs once the service has exited (on dispose, or when it did not start). */
  cleanup?: () => Promise<void>
}): Promise<CliService> {
  return startServerProcess({
    command: process.execPath,
    args: [SVC_CLI, options.subcommand],
    spawn: {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
    },
    ready: options.ready,
    what: `svc ${options.subcommand}`,
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.cleanup ? { cleanup: options.cleanup } : {}),
  })
}
