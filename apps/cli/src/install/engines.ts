import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { ENGINE_NAMES, type EngineName, engineEnvVar, findEngine } from '@svc/engines'
import type { Effects } from './effects'
import type { ManagedEnv } from './env-file'
import { runCommand } from './exec'
import { LAYOUT } from './layout'
import { readableByOthers } from './readable'

type Env = Record<string, string | undefined>

/** What the API's environment gets, and lines for the report. */
export interface InstalledEngines {
  /** `SVC_LLAMA_SERVER` / `SVC_WHISPER_SERVER` for api.env (undefined: not set). */
  env: ManagedEnv
  hints: string[]
}

/**
 * The directories `ProtectHome=yes` hides from a service (and that the svc user cannot enter
 * anyway: root's home is 0700 on most systems).
 */
const HIDDEN = /^\/(home|root|run\/user)(\/|$)/

/**
 * Makes the engines this user built (`./scripts/setup.sh`, `svc engines build`, found as the API
 * would find them: `SVC_<NAME>`, PATH, then the cache under `~/.cache/svc`) runnable by
 * svc-api.service. That unit runs as svc with its home hidden, so a build under root's home is
 * copied to `/usr/local/lib/svc/engines/<name>/<version>/<name>` (root's, 0755: the service may run
 * it but not replace it) and api.env names the copy; an engine outside the home directories is
 * named where it is. Every run copies the newest build again (unchanged bytes are left alone), so
 * "build a new engine, run svc install" updates the service. No engine found: the one a previous
 * run installed stays; else a hint says how to get one.
 */
export async function installEngines(fx: Effects, env: Env, previous: Env): Promise<InstalledEngines> {
  const out: InstalledEngines = { env: {}, hints: [] }
  for (const name of ENGINE_NAMES) {
    const key = engineEnvVar(name)
    const found = findEngine(name, env)
    if (!found) {
      const kept = previous[key]
      if (kept && fx.exists(kept)) out.env[key] = kept
      else
        out.hints.push(
          `No ${name} is built, so slots that need it will not load: run svc engines build ${name} (./scripts/setup.sh does) and svc install again.`,
        )
      continue
    }
    if (found.from !== 'cache' && !HIDDEN.test(found.path)) {
      if (!readableByOthers(found.path))
        out.hints.push(`warning: the svc user cannot run ${found.path} (not readable by others)`)
      out.env[key] = found.path
      continue
    }
    out.env[key] = await copyEngine(fx, name, found.path, found.from === 'cache')
    out.hints.push(...(await hiddenLibraries(found.path, env)))
  }
  return out
}

/** Copies a build into `LAYOUT.engineDir`; returns the target path of the copy. */
async function copyEngine(fx: Effects, name: EngineName, path: string, cached: boolean): Promise<string> {
  const bytes = readFileSync(path)
  // a cache build's directory is its version (`<release>-<commit>-<backend>`); anything else is
  // told apart by its content
  const version = cached
    ? basename(dirname(path))
    : `sha256-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`
  const own = { mode: 0o755, user: 'root', group: 'root' }
  const dir = `${LAYOUT.engineDir}/${name}/${version}`
  for (const d of [dirname(LAYOUT.engineDir), LAYOUT.engineDir, dirname(dir), dir]) await fx.mkdir(d, own)
  await fx.write(`${dir}/${name}`, bytes, own)
  return `${dir}/${name}`
}

/**
 * Shared libraries the binary loads from a home directory (`ldd`), which the service cannot see.
 * `svc engines build` links statically, so this is for binaries built some other way.
 */
async function hiddenLibraries(path: string, env: Env): Promise<string[]> {
  const r = await runCommand(['ldd', path], { env: { PATH: env.PATH } })
  if (r.code !== 0) return [] // static ("not a dynamic executable"), or no ldd here
  return [...r.output.matchAll(/=>\s+(\S+)/g)]
    .map((m) => m[1] ?? '')
    .filter((lib) => HIDDEN.test(lib))
    .map(
      (lib) =>
        `warning: ${path} loads ${lib} from a home directory, which svc-api.service cannot see: build it statically (svc engines build) or install that library system-wide`,
    )
}
