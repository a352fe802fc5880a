/**
 * `svc engines build llama-server`: builds upstream llama.cpp's `llama-server` from the source the
 * `node-llama-cpp` npm package ships (`llama/gitRelease.bundle`, a git bundle of one llama.cpp
 * commit) with cmake, into `<cache>/engines/llama-server/<release>-<commit>-<backend>/llama-server`.
 * A build that exists is reused; the binary appears atomically (rename) only when complete.
 *
 * Static, self-contained build: no OpenSSL (models are pulled by svc, not by llama-server), no web
 * UI download at build time (this machine has no internet beyond npm), no OpenMP runtime dependency.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { copyFile, mkdir, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { cacheRoot, engineDir } from '@svc/core/node'
import { runCommand } from './run-command'

export const LLAMA_BUILD_BACKENDS = ['cpu', 'vulkan', 'cuda', 'rocm'] as const
export type LlamaBuildBackend = (typeof LLAMA_BUILD_BACKENDS)[number]

const BACKEND_FLAGS: Record<LlamaBuildBackend, string[]> = {
  cpu: [],
  vulkan: ['-DGGML_VULKAN=ON'],
  cuda: ['-DGGML_CUDA=ON'],
  rocm: ['-DGGML_HIP=ON'],
}

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

  const say = options.onLine ?? (() => {})
  const root = cacheRoot(env)
  const src = join(root, 'src', `llama.cpp-${source.release}-${source.commit}`)
  const build = join(root, 'build', `llama.cpp-${version}`)
  const run = (cmd: string, args: string[], cwd?: string) =>
    runCommand(cmd, args, {
      onLine: say,
      ...(cwd ? { cwd } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    })

  if (!existsSync(join(src, 'CMakeLists.txt'))) {
    say(`cloning llama.cpp ${source.release} (${source.commit}) from ${source.bundle}`)
    await rm(src, { recursive: true, force: true })
    await mkdir(dirname(src), { recursive: true })
    await run('git', ['clone', '--quiet', source.bundle, src])
  }
  say(`configuring (${backend})`)
  await run('cmake', [
    '-S',
    src,
    '-B',
    build,
    '-DCMAKE_BUILD_TYPE=Release',
    '-DBUILD_SHARED_LIBS=OFF',
    '-DGGML_OPENMP=OFF',
    '-DLLAMA_OPENSSL=OFF',
    '-DLLAMA_CURL=OFF',
    '-DLLAMA_USE_PREBUILT_UI=OFF',
    '-DLLAMA_BUILD_UI=OFF',
    '-DLLAMA_BUILD_TESTS=OFF',
    '-DLLAMA_BUILD_EXAMPLES=OFF',
    '-DLLAMA_BUILD_APP=OFF',
    ...BACKEND_FLAGS[backend],
  ])
  const jobs = options.jobs ?? availableParallelism()
  say(`building llama-server with ${jobs} jobs (a few minutes on first build)`)
  await run('cmake', ['--build', build, '--target', 'llama-server', '-j', String(jobs)])
  await mkdir(outDir, { recursive: true })
  await copyFile(join(build, 'bin', 'llama-server'), `${binary}.tmp`)
  await rename(`${binary}.tmp`, binary)
  say(`built ${binary}`)
  return { path: binary, version, cached: false }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
