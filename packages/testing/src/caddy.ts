/** The real Caddy, run by a test on a Caddyfile it wrote. */
import { testEnv } from './test-env'
import { spawnWatched, type WatchedChild } from './watched-child'

export interface RunCaddyOptions<T> {
  /** The Caddyfile. */
  config: string
  /** Caddy's home, data and config dirs (its local CA is made there, not in this user's home). */
  dataDir: string
  /** Polled every 100 ms until it gives a value: whatever says this test's site answers. */
  ready: () => Promise<T | undefined>
  timeoutMs: number
}

/** A running Caddy and what `ready` gave; dispose stops it (SIGTERM) and waits for the exit. */
export interface RunningCaddy<T> extends AsyncDisposable {
  caddy: WatchedChild
  ready: T
}

/**
 * Runs `caddy run --config <config> --adapter caddyfile` with only PATH from this environment and
 * resolves once `ready` gives a value. When Caddy exits first or the time runs out it is stopped and
 * the error carries its output.
 */
export async function runCaddy<T>(options: RunCaddyOptions<T>): Promise<RunningCaddy<T>> {
  const caddy = spawnWatched('caddy', ['run', '--config', options.config, '--adapter', 'caddyfile'], {
    env: {
      PATH: testEnv.path,
      HOME: options.dataDir,
      XDG_DATA_HOME: options.dataDir,
      XDG_CONFIG_HOME: options.dataDir,
    },
  })
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    if (caddy.child.exitCode !== null) {
      throw new Error(`caddy exited (${caddy.child.exitCode}) before it answered:\n${caddy.output()}`)
    }
    const ready = await options.ready()
    if (ready !== undefined) {
      return { caddy, ready, [Symbol.asyncDispose]: async () => void (await caddy.stop()) }
    }
    if (Date.now() > deadline) {
      await caddy.stop('SIGKILL')
      throw new Error(`caddy did not answer within ${options.timeoutMs} ms:\n${caddy.output()}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}
