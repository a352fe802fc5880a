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
  type BuildOptions,
  type BuildResult,
  buildEngine,
  ENGINE_BUILD_BACKENDS,
  type EngineBuildBackend,
  llamaCheckout,
} from './cmake-build'
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

export type { BuildOptions, BuildResult } from './cmake-build'

/**
 * Builds `llama-server` (or returns the cached build). Blocks for minutes on a first build; `signal`
 * aborts the running compiler. Not safe to run twice at once for the same version.
 */
export async function buildLlamaServer(options: BuildOptions): Promise<BuildResult> {
  const source = await locateLlamaSource()
  const version = `${source.release}-${source.commit}-${options.backend ?? 'cpu'}`
  return buildEngine(
    {
      name: 'llama-server',
      version,
      buildDir: `llama.cpp-${version}`,
      flags: [
        '-DLLAMA_OPENSSL=OFF',
        '-DLLAMA_CURL=OFF',
        '-DLLAMA_USE_PREBUILT_UI=OFF',
        '-DLLAMA_BUILD_UI=OFF',
        '-DLLAMA_BUILD_TESTS=OFF',
        '-DLLAMA_BUILD_EXAMPLES=OFF',
        '-DLLAMA_BUILD_APP=OFF',
      ],
      prepare: (root, steps) => llamaCheckout(root, source, steps),
    },
    options,
  )
}
