/**
 * `svc doctor`: the engines svc runs on the host (llama-server, whisper-server): where each was found
 * (the same lookup the API uses: `SVC_<NAME>`, PATH, the engine cache) and its version, or how to
 * build it.
 */
import { execFile } from 'node:child_process'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { cacheRoot, type EngineName, findEngine } from '@svc/engines'
import type { HardwareFacts } from '@svc/providers'
import type { Finding } from './finding'

const run = promisify(execFile)

/** What each engine is for, and whether svc works without it. */
const ROLE: Record<EngineName, { serves: string; required: boolean }> = {
  'llama-server': { serves: 'chat and embeddings', required: true },
  'whisper-server': { serves: 'transcription', required: false },
}

export async function checkEngines(
  env: Record<string, string | undefined>,
  facts: Pick<HardwareFacts, 'engines' | 'container'>,
): Promise<Finding[]> {
  return Promise.all(
    (Object.keys(ROLE) as EngineName[]).map(async (name): Promise<Finding> => {
      const found = findEngine(name, env)
      const role = ROLE[name]
      if (!found) {
        // With a container engine, container slots run their own engine: the host one is optional.
        const blocks = role.required && !facts.container.ok
        return {
          mark: blocks ? 'fail' : 'warn',
          text: `${name}: not found (it serves ${role.serves}; looked at ${envName(name)}, PATH and ${join(cacheRoot(env), 'engines', name)})`,
          fix: `build it from source: svc engines build ${name} (a few minutes), or set ${envName(name)} to one you have`,
        }
      }
      const version = await versionOf(name, found.path, env)
      const backends = facts.engines[name]?.backends
      const extra = [version, backends?.length ? `backends ${backends.join(', ')}` : undefined].filter(
        Boolean,
      )
      return { mark: 'ok', text: `${name}: ${found.path}${extra.length ? ` (${extra.join('; ')})` : ''}` }
    }),
  )
}

function envName(name: EngineName): string {
  return `SVC_${name.toUpperCase().replace(/-/g, '_')}`
}

/**
 * A build in the engine cache is named by its version (`<cache>/engines/<name>/<version>/<name>`);
 * another llama-server says it with `--version`. whisper-server has no such flag (it would start a
 * server): unknown.
 */
async function versionOf(
  name: EngineName,
  path: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  if (dirname(dirname(path)) === join(cacheRoot(env), 'engines', name)) return basename(dirname(path))
  if (name !== 'llama-server') return undefined
  try {
    const { stdout, stderr } = await run(path, ['--version'], { timeout: 5000, env: { ...env } })
    return /version:\s*(.+)/.exec(`${stdout}\n${stderr}`)?.[1]?.trim()
  } catch {
    return undefined
  }
}
