/**
 * Shared set-up of the container tests: a real engine (started when none answers), a local registry,
 * an image holding the real llama-server (pushed, pinned with `pinManifest`, then removed from the
 * engine so the first pull is real), and a tiny GGUF for it. Every container the tests create carries
 * `svc.test=<run>`; `cleanup` removes them, the image, the registry and the files.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelEntry } from '@svc/core'
import { findEngine } from '@svc/engines'
import {
  docker,
  ensureDockerEngine,
  missingPart,
  publishRootfsImage,
  removeContainersByLabel,
  startRegistry,
  writeTinyGguf,
} from '@svc/testing'
import { type ImageManifest, loadImageManifest } from '../src/manifest/manifest'
import { pinManifest } from '../src/manifest/pin'

export interface ContainerFixture {
  /** `llama-test` (pinned) and `unpinned` (no digest) entries. */
  manifest: ImageManifest
  dir: string
  /** A tiny chat GGUF at `<dir>/models/tiny-chat.gguf`, as a local model entry. */
  model: ModelEntry
  /** Label value every test container carries (`svc.test`). */
  run: string
  cleanup(): Promise<void>
}

export async function containerFixture(): Promise<ContainerFixture | { skip: true; reason: string }> {
  const engine = await ensureDockerEngine()
  if ('skip' in engine) return engine
  const llama = findEngine('llama-server', process.env)
  if (!llama) return missingPart('llama-server', 'run ./scripts/setup.sh (svc engines build llama-server)')
  const registry = await startRegistry()
  if ('skip' in registry) return registry
  const run = randomBytes(4).toString('hex')
  const dir = await mkdtemp(join(tmpdir(), 'svc-container-'))
  const repository = `${registry.host}/svc-test/llama-server`
  let manifest: ImageManifest | undefined
  const cleanup = async () => {
    await removeContainersByLabel(`svc.test=${run}`).catch(() => 0)
    if (manifest) await docker(['rmi', '-f', manifest.reference('llama-test')]).catch(() => '')
    await registry.stop()
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await publishRootfsImage({ tag: `${repository}:v1`, binaries: [llama.path] })
    const file = join(dir, 'images.toml')
    await writeFile(
      file,
      `# test manifest\n[image.llama-test]\nprovider = "llm"\nbackend = "cpu"\nrepository = "${repository}"\ntag = "v1"\ndigest = ""\n\n[image.unpinned]\nprovider = "llm"\nrepository = "${repository}"\ntag = "v1"\n`,
    )
    const pinned = await pinManifest({ file, names: ['llama-test'] })
    if (!pinned.results[0]?.ok) throw new Error(`pinning the test image failed: ${pinned.results[0]?.error}`)
    manifest = await loadImageManifest(file)
    await mkdir(join(dir, 'models'))
    const gguf = await writeTinyGguf(join(dir, 'models', 'tiny-chat.gguf'), { role: 'chat' })
    const model: ModelEntry = {
      id: 'tiny-chat',
      format: 'gguf',
      provider: 'llm',
      source: 'local',
      role: 'chat',
      path: gguf.path,
    }
    return { manifest, dir, model, run, cleanup }
  } catch (error) {
    await cleanup()
    throw error
  }
}
