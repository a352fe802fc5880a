import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUILT_ENTRIES, ensureBuilt } from './built'
import { REPO_ROOT } from './repo-root'
import { LISTENING, type ServerProcess, startServerProcess } from './server-process'
import { testEnv } from './test-env'

export { REPO_ROOT }

const SERVE_TS = join(REPO_ROOT, 'apps/api/src/serve.ts')

/** The API's process; dispose stops it and removes the temp dirs it made. */
export interface ApiProcess extends ServerProcess {
  configDir: string
  stateDir: string
}

export interface StartApiOptions {
  env?: Record<string, string>
  /** Reuse directories (e.g. to restart the API over the same state). Temp dirs otherwise. */
  configDir?: string
  stateDir?: string
  timeoutMs?: number
  /**
   * Run the build (`apps/api/dist/serve.js`, made first when missing or stale) instead of the source
   * through tsx. Default: `SVC_TEST_BUILT` set (`1`) in the environment, so a whole suite can run against it.
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
  const built = options.built ?? testEnv.built
  if (built) await ensureBuilt('api')
  // node itself with tsx's loader (not the tsx CLI, which is a second process): a signal sent to the
  // child reaches the API, so SIGKILL really is a crashed API.
  const argv = built ? [BUILT_ENTRIES.api] : ['--import', 'tsx', SERVE_TS]
  const api = await startServerProcess({
    command: process.execPath,
    args: argv,
    spawn: {
      cwd: REPO_ROOT,
      env: {
        ...testEnv.inherited(),
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
        SVC_CONFIG_DIR: configDir,
        SVC_STATE_DIR: stateDir,
        SVC_LOG_LEVEL: 'debug',
        ...options.env,
      },
    },
    ready: LISTENING.api,
    what: 'API',
    timeoutMs: options.timeoutMs ?? 30_000,
    cleanup: async () => {
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })))
    },
  })
  return Object.assign(api, { configDir, stateDir })
}
