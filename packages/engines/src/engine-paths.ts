import { accessSync, constants, readdirSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

type Env = Record<string, string | undefined>

/** Engines svc can build from source into its cache (`svc engines build <name>`). */
export const ENGINE_NAMES = ['llama-server', 'whisper-server'] as const
export type EngineName = (typeof ENGINE_NAMES)[number]

/** `$SVC_CACHE_DIR`, else `$XDG_CACHE_HOME/svc`, else `~/.cache/svc`. Builds live outside the repo. */
export function cacheRoot(env: Env): string {
  return env.SVC_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'svc')
}

/** `<cache>/engines/<name>/<version>/<name>`: one directory per source version. */
export function engineDir(name: EngineName, version: string, env: Env): string {
  return join(cacheRoot(env), 'engines', name, version)
}

/** `SVC_LLAMA_SERVER` for `llama-server`, `SVC_WHISPER_SERVER` for `whisper-server`. */
export function engineEnvVar(name: EngineName): string {
  return `SVC_${name.toUpperCase().replace(/-/g, '_')}`
}

export interface FoundEngine {
  path: string
  from: 'env' | 'path' | 'cache'
}

/**
 * Finds an engine binary in `env` (the caller's environment, read once where it starts: these
 * functions never read the process's own). Order: the `SVC_<NAME>` env var, then `<name>` on PATH, then the newest
 * build in the cache. Undefined when there is none (the caller names the command that builds it).
 */
export function findEngine(name: EngineName, env: Env): FoundEngine | undefined {
  const fromEnv = env[engineEnvVar(name)]
  if (fromEnv) return { path: fromEnv, from: 'env' }
  const onPath = findOnPath(name, env.PATH)
  if (onPath) return { path: onPath, from: 'path' }
  const root = join(cacheRoot(env), 'engines', name)
  let versions: string[] = []
  try {
    versions = readdirSync(root)
  } catch {
    return undefined
  }
  const built = versions
    .map((v) => join(root, v, name))
    .filter(isExecutable)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  return built[0] ? { path: built[0], from: 'cache' } : undefined
}

/**
 * The first executable file `name` in the directories of `path` (a `PATH` value), then in
 * `extraDirs`; undefined when there is none. The one PATH lookup of svc's programs and tests.
 */
export function findOnPath(
  name: string,
  path: string | undefined,
  extraDirs: readonly string[] = [],
): string | undefined {
  for (const dir of [...(path ?? '').split(delimiter), ...extraDirs]) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name)
  }
  return undefined
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}
