import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { withFileLock } from '@svc/core/node'
import { REPO_ROOT } from './repo-root'

/** The apps `pnpm build` bundles into plain JavaScript (scripts/build-server.mjs). */
export const BUILT_APPS = ['api', 'chat', 'cli'] as const
export type BuiltApp = (typeof BUILT_APPS)[number]

const BUILD_SCRIPT = /node \.\.\/\.\.\/scripts\/build-server\.mjs ([^&]+)/

/** Where `app`'s bundle lives and the arguments that make it (read from its package.json `build`). */
async function buildOf(app: BuiltApp): Promise<{ dir: string; args: string[]; outdir: string }> {
  const dir = join(REPO_ROOT, 'apps', app)
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
    scripts?: { build?: string }
  }
  const m = BUILD_SCRIPT.exec(pkg.scripts?.build ?? '')
  if (!m?.[1]) throw new Error(`apps/${app}: its build script does not run scripts/build-server.mjs`)
  const args = m[1].trim().split(/\s+/)
  const outdir = resolve(dir, args[args.indexOf('--outdir') + 1] ?? 'dist')
  return { dir, args, outdir }
}

/** True when the bundle is missing or older than a file it was made from (its `inputs.json`). */
async function isStale(outdir: string): Promise<boolean> {
  let built: { builtAt: string; inputs: string[] }
  try {
    built = JSON.parse(await readFile(join(outdir, 'inputs.json'), 'utf8'))
  } catch {
    return true
  }
  const at = Date.parse(built.builtAt)
  for (const input of built.inputs) {
    const mtime = await stat(resolve(outdir, input)).then(
      (s) => s.mtimeMs,
      () => Number.POSITIVE_INFINITY,
    )
    if (mtime > at) return true
  }
  return false
}

/**
 * Makes sure the server bundle of each app is there and not older than its sources, building it
 * (scripts/build-server.mjs, a few seconds; not the front ends) when it is not. Tests of the built
 * servers call it first, so they never run a stale build. Safe across test processes (a lock).
 */
export async function ensureBuilt(...apps: BuiltApp[]): Promise<void> {
  for (const app of apps) {
    const { dir, args, outdir } = await buildOf(app)
    if (!(await isStale(outdir))) continue
    await withFileLock(
      join(tmpdir(), `svc-build-${createHash('sha256').update(outdir).digest('hex').slice(0, 12)}`),
      async () => {
        if (!(await isStale(outdir))) return
        await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'scripts/build-server.mjs'), ...args], {
          cwd: dir,
        })
      },
      { timeoutMs: 120_000, staleMs: 120_000 },
    )
  }
}

/** The built entries of the servers and the CLI. */
export const BUILT_ENTRIES = {
  api: join(REPO_ROOT, 'apps/api/dist/serve.js'),
  chat: join(REPO_ROOT, 'apps/chat/dist-server/serve.js'),
  cli: join(REPO_ROOT, 'apps/cli/dist/svc.js'),
} as const
