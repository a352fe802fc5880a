/**
 * A server a test runs as a child process (the API, the chat app, a CLI service): started, waited
 * for until its log says where it listens, and stopped on dispose.
 */
import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { spawnWatched } from './watched-child'

/**
 * The log lines in which svc's servers say where they listen (their first group is the URL), for
 * `ready`: the API's and the chat app's, however they were started (`startApi`, `svc serve`,
 * `svc chat`, `pnpm start --foreground`).
 */
export const LISTENING = {
  api: /"msg":"svc listening","url":"(http:\/\/[^"]+)"/,
  chat: /"msg":"svc chat listening","url":"(http:\/\/[^"]+)"/,
} as const

export interface ServerProcess extends AsyncDisposable {
  /** Where it listens, from its ready line (`http://127.0.0.1:<port>`). */
  url: string
  port: number
  pid: number
  child: ChildProcess
  /** Everything it wrote to stdout and stderr so far (its JSON log lines). */
  output(): string
  /** Sends `signal` (default SIGTERM) once, waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export interface StartServerOptions {
  command: string
  args: readonly string[]
  spawn?: Omit<SpawnOptions, 'stdio'>
  /** A log line whose first group is the URL it listens on. */
  ready: RegExp
  /** Its name in errors ("API exited with 1 before listening: …"). */
  what: string
  timeoutMs: number
  /** Runs once the process has exited: on dispose, or when it did not start (e.g. removes its temp dirs). */
  cleanup?: () => Promise<void>
}

/**
 * Spawns the server and resolves once its output matches `ready`; rejects with its output when it
 * exits first or does not get ready in `timeoutMs` (then it is killed and `cleanup` runs). Dispose
 * stops it with SIGTERM and runs `cleanup`.
 */
export async function startServerProcess(options: StartServerOptions): Promise<ServerProcess> {
  const server = spawnWatched(options.command, options.args, options.spawn)
  const url = await server
    .waitFor(options.ready, { what: options.what, timeoutMs: options.timeoutMs })
    .catch(async (error: unknown) => {
      await server.stop('SIGKILL')
      await options.cleanup?.()
      throw error
    })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => (await server.stop(signal)).code
  return {
    url,
    port: Number(new URL(url).port),
    pid: server.child.pid!,
    child: server.child,
    output: server.output,
    stop,
    async [Symbol.asyncDispose]() {
      await stop()
      await options.cleanup?.()
    },
  }
}
