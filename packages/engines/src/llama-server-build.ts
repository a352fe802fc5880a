/**
 * `svc engines build llama-server`: builds upstream llama.cpp's `llama-server` from the source the
 * `node-llama-cpp` npm package ships (`llama/gitRelease.bundle`, a git bundle of one llama.cpp
 * commit) with cmake, into `<cache>/engines/llama-server/<release>-<commit>-<backend>/llama-server`.
 * A build that exists is reused; the binary appears atomically (rename) only when complete.
 *
 * Static, self-contained build: no OpenSSL (models are pulled by svc, not by llama-server), no web
 * UI download at build time (this machine has no internet beyond npm), no OpenMP runtime dependency.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import {
  cmakeTarget,
  ENGINE_BUILD_BACKENDS,
  type EngineBuildBackend,
  GGML_BACKEND_FLAGS,
  isExecutable,
  llamaCheckout,
  runner,
  STATIC_FLAGS,
} from './cmake-build'
import { cacheRoot, engineDir } from './engine-paths'
import { runCommand } from './run-command'

/** The build backends (`--backend`); kept under this name for the CLI. */
export const LLAMA_BUILD_BACKENDS = ENGINE_BUILD_BACKENDS
export type LlamaBuildBackend = EngineBuildBackend

export interface LlamaSource {
  bundle: string
  /** llama.cpp release the bundle was made from (node-llama-cpp's binariesGithubRelease.json). */
  release: string
  commit: string
}

/** Finds the llama.cpp bundle inside the installed node-llama-cpp package. */
export async function locateLlamaSource(): Promise<LlamaSource> {
  const require = createRequire(import.meta.url)
  let dir = dirname(require.resolve('node-llama-cpp'))
  while (!existsSync(join(dir, 'llama', 'gitRelease.bundle'))) {
    const up = dirname(dir)
    if (up === dir)
      throw new Error(
        'node-llama-cpp does not ship llama/gitRelease.bundle; reinstall dependencies (pnpm install)',
      )
    dir = up
  }
  const bundle = join(dir, 'llama', 'gitRelease.bundle')
  const release = (
    JSON.parse(readFileSync(join(dir, 'llama', 'binariesGithubRelease.json'), 'utf8')) as { release: string }
  ).release
  const heads = await runCommand('git', ['bundle', 'list-heads', bundle])
  const commit = heads.trim().split(/\s+/)[0]?.slice(0, 7)
  if (!commit) throw new Error(`cannot read the commit of ${bundle}`)
  return { bundle, release, commit }
}

export interface BuildOptions {
  backend?: LlamaBuildBackend
  jobs?: number
  /** Rebuild even when the cache has this version. */
  force?: boolean
  onLine?: (line: string) => void
  signal?: AbortSignal
  env?: Record<string, string | undefined>
}

export interface BuildResult {
  path: string
  version: string
  cached: boolean
}

export async function buildLlamaServer(options: BuildOptions = {}): Promise<BuildResult> {
  const env = options.env ?? process.env
  const backend = options.backend ?? 'cpu'
  const source = await locateLlamaSource()
  const version = `${source.release}-${source.commit}-${backend}`
  const outDir = engineDir('llama-server', version, env)
  const binary = join(outDir, 'llama-server')
  if (!options.force && isExecutable(binary)) return { path: binary, version, cached: true }

  const steps = runner(options)
  const root = cacheRoot(env)
  const src = await llamaCheckout(root, source, steps)
  steps.say(`configuring (${backend})`)
  await cmakeTarget({
    src,
    build: join(root, 'build', `llama.cpp-${version}`),
    flags: [
      ...STATIC_FLAGS,
      '-DLLAMA_OPENSSL=OFF',
      '-DLLAMA_CURL=OFF',
      '-DLLAMA_USE_PREBUILT_UI=OFF',
      '-DLLAMA_BUILD_UI=OFF',
      '-DLLAMA_BUILD_TESTS=OFF',
      '-DLLAMA_BUILD_EXAMPLES=OFF',
      '-DLLAMA_BUILD_APP=OFF',
      ...GGML_BACKEND_FLAGS[backend],
    ],
    target: 'llama-server',
    binary,
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...steps,
  })
  return { path: binary, version, cached: false }
}
