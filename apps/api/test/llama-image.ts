/**
 * The setup the container and swarm tests share: the real llama-server published as an image to a
 * local registry, the image manifest naming it (not yet pinned), a config directory with one slot
 * file, and a tiny chat model.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  ensureDockerEngine,
  missingPart,
  publishRootfsImage,
  REPO_ROOT,
  startApi,
  startRegistry,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'

const exec = promisify(execFile)

export interface LlamaImageSetup {
  /** The test's temp directory (config, state, manifest and model are inside it). */
  dir: string
  configDir: string
  stateDir: string
  /** The image manifest file, with `digest = ""` for `svc manifest pin` to fill. */
  manifest: string
  /** Path of the tiny chat model to load. */
  model: string
  /** The image's repository in the local registry (`host:port/svc-test/…`), tag `v1`. */
  repository: string
  /** Runs `svc manifest pin --file <manifest>` (the built CLI, as a user types it); resolves with its stdout. */
  pinManifest(): Promise<string>
  /**
   * Starts the API over this config and state, with the manifest as `SVC_IMAGES_MANIFEST`. The setup
   * owns it: `cleanup` stops it (each one started, also after a test SIGKILLed one).
   */
  startApi(): Promise<ApiProcess>
  /** Stops the APIs it started, runs `removeLeftovers`, stops the registry, removes the temp directory. */
  cleanup(): Promise<void>
}

export interface LlamaImageOptions {
  /** Names the temp directory and the image (`svc-test/llama-<name>-<random>`). */
  name: string
  /** The text of `slots/primary.toml`. */
  primarySlot: string
  /** What the test made in the engine (containers, services), removed once the APIs have stopped. */
  removeLeftovers?: (setup: LlamaImageSetup) => Promise<void>
}

/**
 * Builds the setup, or returns undefined when Docker Engine, the registry or llama-server is missing
 * (each reported by `missingPart`: a failure in CI, a loud skip elsewhere).
 */
export async function setupLlamaImage(options: LlamaImageOptions): Promise<LlamaImageSetup | undefined> {
  const engine = await ensureDockerEngine()
  if ('skip' in engine) return undefined
  const llama = findEngine('llama-server', process.env)
  if (!llama) {
    missingPart('llama-server', 'run ./scripts/setup.sh')
    return undefined
  }
  const registry = await startRegistry()
  if ('skip' in registry) return undefined
  const dir = await mkdtemp(join(tmpdir(), `svc-${options.name}-`))
  const repository = `${registry.host}/svc-test/llama-${options.name}-${randomBytes(3).toString('hex')}`
  await publishRootfsImage({ tag: `${repository}:v1`, binaries: [llama.path] })
  const manifest = join(dir, 'images.toml')
  await writeFile(
    manifest,
    `# the test's image manifest\n[image.llama-cpu]\nprovider = "llm"\nbackend = "cpu"\nrepository = "${repository}"\ntag = "v1"\ndigest = ""   # filled by svc manifest pin\n`,
  )
  const configDir = await writeSvcConfig(join(dir, 'config'), { slots: { primary: options.primarySlot } })
  const stateDir = join(dir, 'state')
  await mkdir(join(dir, 'models'))
  const started: ApiProcess[] = []
  const model = (await writeTinyGguf(join(dir, 'models', 'tiny-chat.gguf'), { role: 'chat' })).path
  const setup: LlamaImageSetup = {
    dir,
    configDir,
    stateDir,
    manifest,
    model,
    repository,
    pinManifest: async () =>
      (
        await exec(process.execPath, [
          join(REPO_ROOT, 'apps/cli/bin/svc.js'),
          'manifest',
          'pin',
          '--file',
          manifest,
        ])
      ).stdout,
    async startApi() {
      const api = await startApi({ configDir, stateDir, env: { SVC_IMAGES_MANIFEST: manifest } })
      started.push(api)
      return api
    },
    async cleanup() {
      for (const api of started) await api[Symbol.asyncDispose]()
      await options.removeLeftovers?.(setup)
      await registry.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return setup
}
