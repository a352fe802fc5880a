/**
 * A child process a test starts and talks to: its stdout and stderr kept as one text, its exit as a
 * promise, a wait for the line that says it is ready, and a stop that does not signal twice. The API,
 * the chat app, the CLI's services, Caddy and the fake upstream are all started through it.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'

/** How a child ended: its exit code, or the signal that ended it. */
export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface WatchedChild {
  child: ChildProcess
  /** Settles when the process exits; never rejects. */
  exited: Promise<ChildExit>
  /** Everything it wrote to stdout and stderr so far, interleaved as it arrived. */
  output(): string
  /**
   * Resolves with the first group of `ready` (a server's "listening on URL" line) once the output
   * matches it. Rejects with the output so far — "`what` exited with CODE before listening" or
   * "`what` did not start within N ms" — when the process exits first or `timeoutMs` passes; on the timeout the child is SIGKILLed,
   * so a process that never got ready is not left running.
   */
  waitFor(ready: RegExp, options: { what: string; timeoutMs: number }): Promise<string>
  /**
   * Sends `signal` (default SIGTERM) unless the process has exited or was already sent that signal,
   * escalates to SIGKILL after `graceMs` when given, and resolves with how it exited. Safe to call
   * again (a second SIGTERM would make some servers skip their graceful shutdown).
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ChildExit>
}

/** Spawns `command` with stdout and stderr piped (stdin closed) and watches it; see {@link WatchedChild}. */
export function spawnWatched(
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): WatchedChild {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const collect = (d: Buffer) => {
    out += d.toString()
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<ChildExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  // A command that cannot be spawned (ENOENT) emits 'error' and no 'exit' with a code.
  const failed = new Promise<Error>((resolve) => child.once('error', resolve))
  const running = () => child.exitCode === null && child.signalCode === null

  const waitFor = (ready: RegExp, { what, timeoutMs }: { what: string; timeoutMs: number }) =>
    new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        child.stdout?.off('data', check)
        child.stderr?.off('data', check)
      }
      const check = () => {
        const m = ready.exec(out)
        if (m?.[1]) {
          done()
          resolve(m[1])
        }
      }
      const timer = setTimeout(() => {
        done()
        child.kill('SIGKILL')
        reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${out}`))
      }, timeoutMs)
      child.stdout?.on('data', check)
      child.stderr?.on('data', check)
      check()
      void exited.then(({ code, signal }) => {
        done()
        reject(new Error(`${what} exited with ${code ?? signal} before listening:\n${out}`))
      })
      void failed.then((error) => {
        done()
        reject(error)
      })
    })

  const sent = new Set<NodeJS.Signals>()
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs?: number) => {
    if (running() && !sent.has(signal)) {
      sent.add(signal)
      child.kill(signal)
      if (graceMs !== undefined) {
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
        void exited.then(() => clearTimeout(timer))
      }
    }
    return exited
  }
  return { child, exited, output: () => out, waitFor, stop }
}
