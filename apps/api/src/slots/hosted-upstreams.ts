import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type HostedUpstream, parseUpstreams } from '@svc/dispatcher'

/** Reads `<config>/upstreams.toml` (absent = none). A broken file is an error with its reason. */
export async function loadHostedUpstreams(
  configDir: string,
  env: Record<string, string | undefined>,
): Promise<HostedUpstream[]> {
  const file = join(configDir, 'upstreams.toml')
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const result = parseUpstreams(text, env, file)
  if (!result.ok) throw new Error(result.error)
  return result.upstreams
}
