import { isAbsolute } from 'node:path'
import { SvcError } from '@svc/core'
import { ENGINE_NAMES, type EngineName, engineEnvVar, findEngine, findOnPath } from '@svc/engines'

type Env = Record<string, string | undefined>

/**
 * Resolves argv[0] of a provider's start command to an executable on this host. Engines svc can
 * build (`llama-server`, `whisper-server`) follow `SVC_<NAME>` → PATH → the engine cache; other
 * programs are looked up on PATH. When nothing is found the error names what to run.
 */
export function resolveProgram(name: string, env: Env): string {
  if (isAbsolute(name)) return name
  if ((ENGINE_NAMES as readonly string[]).includes(name)) {
    const found = findEngine(name as EngineName, env)
    if (found) return found.path
    throw new SvcError(
      'upstream.unavailable',
      `${name} not found: run "svc engines build ${name}", put ${name} on PATH, or set ${engineEnvVar(name as EngineName)}`,
    )
  }
  const found = findOnPath(name, env.PATH)
  if (found) return found
  throw new SvcError('upstream.unavailable', `${name} not found on PATH`)
}
