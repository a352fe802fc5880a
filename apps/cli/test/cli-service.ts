/**
 * A service as its systemd unit runs it: `node apps/cli/bin/svc.js <subcommand>` in the foreground,
 * with exactly the environment its env file gives (plus PATH and HOME), until SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { SVC } from './install-harness'

export interface CliService extends AsyncDisposable {
  url: string
  port: number
  child: ChildProcess
  output(): string
  /** SIGTERM, then waits for the exit; resolves with the exit code (0: a clean stop). */
  stop(): Promise<number | null>
}

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
}): Promise<CliService> {
  const child = spawn(process.execPath, [SVC, options.subcommand], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`svc ${options.subcommand} did not start in time:\n${out}`)),
      options.timeoutMs ?? 60_000,
    )
    const collect = (d: Buffer) => {
      out += d.toString()
      const m = options.ready.exec(out)
      if (m?.[1]) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout?.on('data', collect)
    child.stderr?.on('data', collect)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`svc ${options.subcommand} exited with ${code} before it was ready:\n${out}`))
    })
  })
  let stopped: Promise<number | null> | undefined
  const stop = () => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    })()
    return stopped
  }
  return {
    url,
    port: Number(new URL(url).port),
    child,
    output: () => out,
    stop,
    async [Symbol.asyncDispose]() {
      await stop()
    },
  }
}
