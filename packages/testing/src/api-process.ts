import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUILT_ENTRIES, ensureBuilt } from './built'
import { REPO_ROOT } from './repo-root'

export { REPO_ROOT }

const SERVE_TS = join(REPO_ROOT, 'apps/api/src/serve.ts')

export interface ApiProcess extends AsyncDisposable {
  url: string
  port: number
  child: ChildProcess
  configDir: string
  stateDir: string
  /** Everything the process wrote to stderr/stdout so far (its JSON log lines). */
  output(): string
  /** SIGTERM, then waits for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export interface StartApiOptions {
  env?: Record<string, string>
  /** Reuse directories (e.g. to restart the API over the same state). Temp dirs otherwise. */
  configDir?: string
  stateDir?: string
  timeoutMs?: number
  /**
   * Run the build (`apps/api/dist/serve.js`, made first when missing or stale) instead of the source
   * through tsx. Default: `SVC_TEST_BUILT=1` in the environment, so a whole suite can run against it.
   */
  built?: boolean
}

/**
 * Starts the real API (`apps/api/src/serve.ts`, or its build with `built`) as a child process on 127.0.0.1 and port 0, waits for
 * its "svc listening" log line, and returns its URL. Temp directories it made are removed on dispose.
 */
export async function startApi(options: StartApiOptions = {}): Promise<ApiProcess> {
  const made: string[] = []
  const configDir = options.configDir ?? (await mkdtemp(join(tmpdir(), 'svc-config-')))
  const stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'svc-state-')))
  if (!options.configDir) made.push(configDir)
  if (!options.stateDir) made.push(stateDir)
  const built = options.built ?? process.env.SVC_TEST_BUILT === '1'
  if (built) await ensureBuilt('api')
  // node itself with tsx's loader (not the tsx CLI, which is a second process): a signal sent to the
  // child reaches the API, so SIGKILL really is a crashed API.
  const argv = built ? [BUILT_ENTRIES.api] : ['--import', 'tsx', SERVE_TS]
  const child = spawn(process.execPath, argv, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SVC_HOST: '127.0.0.1',
      SVC_PORT: '0',
      SVC_CONFIG_DIR: configDir,
      SVC_STATE_DIR: stateDir,
      SVC_LOG_LEVEL: 'debug',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`API did not start in time:\n${out}`)),
      options.timeoutMs ?? 30_000,
    )
    const onData = () => {
      const m = /"msg":"svc listening","url":"(http:\/\/[^"]+)"/.exec(out)
      if (m?.[1]) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`API exited with ${code} before listening:\n${out}`))
    })
  })

  let stopped: Promise<number | null> | undefined
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    })()
    return stopped
  }
  return {
    url,
    port: Number(new URL(url).port),
    child,
    configDir,
    stateDir,
    output: () => out,
    stop,
    async [Symbol.asyncDispose]() {
      await stop()
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })))
    },
  }
}
