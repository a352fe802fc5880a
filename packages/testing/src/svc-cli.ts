/** svc's own CLI, run by a test as its user runs it: `node apps/cli/bin/svc.js …`, to its exit. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from './repo-root'

/** The CLI's entry (plain JavaScript that loads the sources through tsx, or the build). */
export const SVC_CLI = join(REPO_ROOT, 'apps/cli/bin/svc.js')

/** How a CLI run ended: its exit code (0: success) and what it printed. */
export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `svc <args>` with `env` as its whole environment (pass `{ ...testEnv.inherited(), … }` to inherit) and
 * resolves when it exits, with a non-zero code rather than a rejection when it fails; killed after
 * 60 s (code 1).
 */
export function runSvc(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SVC_CLI, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}
