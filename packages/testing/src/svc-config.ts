import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type ApiProcess, type StartApiOptions, startApi } from './api-process'

/** What goes into an svc config directory for a test. */
export interface SvcConfigFiles {
  /** Slot files by slot name: `{ primary: 'args = [...]' }` becomes `slots/primary.toml`. */
  slots?: Record<string, string>
  /** Any other file by its path inside the config directory (e.g. `upstreams.toml`, `tokens.toml`). */
  files?: Record<string, string>
}

/**
 * Writes `config` into `configDir` (made when missing, `slots/` always made so an empty slot set is
 * still a valid config) and returns `configDir`. Files already there with other names are kept; the
 * named ones are overwritten.
 */
export async function writeSvcConfig(configDir: string, config: SvcConfigFiles = {}): Promise<string> {
  await mkdir(join(configDir, 'slots'), { recursive: true })
  const entries: [string, string][] = [
    ...Object.entries(config.slots ?? {}).map(([name, toml]): [string, string] => [
      join('slots', `${name}.toml`),
      toml,
    ]),
    ...Object.entries(config.files ?? {}),
  ]
  for (const [path, text] of entries) {
    const target = join(configDir, path)
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, text)
  }
  return configDir
}

export interface StartApiWithConfigOptions extends Omit<StartApiOptions, 'configDir'>, SvcConfigFiles {}

/**
 * Starts the real API (see `startApi`) over a fresh temp config directory holding `slots` and
 * `files`; disposing the process also removes that directory. For a config a test must change between
 * two API runs, use `writeSvcConfig` on a directory the test owns and pass it to `startApi`.
 */
export async function startApiWithConfig(options: StartApiWithConfigOptions = {}): Promise<ApiProcess> {
  const { slots, files, ...apiOptions } = options
  const configDir = await mkdtemp(join(tmpdir(), 'svc-config-'))
  try {
    await writeSvcConfig(configDir, { slots, files })
    const api = await startApi({ ...apiOptions, configDir })
    const dispose = api[Symbol.asyncDispose].bind(api)
    api[Symbol.asyncDispose] = async () => {
      await dispose()
      await rm(configDir, { recursive: true, force: true })
    }
    return api
  } catch (error) {
    await rm(configDir, { recursive: true, force: true })
    throw error
  }
}
