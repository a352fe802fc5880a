/**
 * The environment svc's test tooling reads, read once when this module loads, validated (a wrong value
 * is an error naming the variable), and frozen. Every other file of `@svc/testing` gets its settings,
 * and the environment its children inherit, from `testEnv`; none reads the process's environment.
 *
 * Why the test harness has a reader of its own beside the servers' (apps/api/src/serve.ts,
 * apps/chat/src/server/serve.ts) and the CLI's (apps/cli/src/context.ts): it is a fourth program with
 * a different caller. It runs inside vitest (and as the stand-in programs tests start), never inside
 * svc, and what it reads (`CI`, where Chromium or Docker is, which build to test) is the test run's
 * setting, not svc's. Routing it through a server's reader would make product code know about tests;
 * reading it in each helper, as before, let each helper decide alone what a value means. So: one
 * module, in the package's source because the helpers import it.
 */
import { envFlag, envPort } from '@svc/core/node'

type Env = Readonly<Record<string, string | undefined>>

export interface TestEnv {
  /**
   * `CI` set to anything but empty, `0` or `false` (GitHub sets `true`, others `1`): a missing real
   * part fails the test instead of skipping it.
   */
  readonly ci: boolean
  /** `SVC_TEST_BUILT` (a flag): `startApi` runs the build instead of the sources. */
  readonly built: boolean
  /** `SVC_CHROMIUM`: the browser binary; default Debian's `/usr/bin/chromium`. */
  readonly chromium: string
  /** `SVC_ARTIFACTS_DIR`: where browser tests keep screenshots (CI artefacts); unset: `<repo>/artifacts`. */
  readonly artifactsDir: string | undefined
  /** `DOCKER_HOST` as given; unset: the local socket. */
  readonly dockerHost: string | undefined
  /** `PATH`: where programs (dockerd, caddy, a registry…) are looked for. */
  readonly path: string
  /** The `flm` stand-in's own: `FLM_SERVE_PORT` (default 52625), `FLM_STANDIN_JOB_MS` (default 0). */
  readonly flm: { readonly servePort: number; readonly jobDelayMs: number }
  /**
   * A fresh copy of the whole environment, for a child that inherits it (`{ ...testEnv.inherited(),
   * SVC_PORT: '0' }`) and for finding engines (`SVC_LLAMA_SERVER`, PATH, `SVC_CACHE_DIR`).
   */
  inherited(): Record<string, string | undefined>
}

/** Whether `CI` says this run is CI: anything but unset, empty, `0` or `false` (any case). */
export function isCI(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase()
  return v !== undefined && v !== '' && v !== '0' && v !== 'false'
}

/** Parses the tooling's variables out of `env`; throws an Error naming the variable on a wrong value. */
export function readTestEnv(env: Env): TestEnv {
  const whole = Object.freeze({ ...env })
  const jobMs = env.FLM_STANDIN_JOB_MS?.trim() || '0'
  const jobDelayMs = Number(jobMs)
  if (!Number.isInteger(jobDelayMs) || jobDelayMs < 0)
    throw new Error(`FLM_STANDIN_JOB_MS must be a whole number of ms >= 0, got "${env.FLM_STANDIN_JOB_MS}"`)
  return Object.freeze({
    ci: isCI(env.CI),
    built: envFlag('SVC_TEST_BUILT', env.SVC_TEST_BUILT, false),
    chromium: env.SVC_CHROMIUM || '/usr/bin/chromium',
    artifactsDir: env.SVC_ARTIFACTS_DIR || undefined,
    dockerHost: env.DOCKER_HOST || undefined,
    path: env.PATH ?? '',
    flm: Object.freeze({ servePort: envPort('FLM_SERVE_PORT', env.FLM_SERVE_PORT, 52625), jobDelayMs }),
    inherited: () => ({ ...whole }),
  })
}

/** The test run's environment, read once. */
export const testEnv: TestEnv = readTestEnv(process.env)
