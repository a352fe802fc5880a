/**
 * The steps every engine build shares: a runner that streams output lines, the one llama.cpp
 * checkout (node-llama-cpp's bundle; whisper-server takes its ggml from it too), and "configure,
 * build one target, install the binary atomically" with cmake.
 */
import { accessSync, constants, existsSync } from 'node:fs'
import { copyFile, mkdir, rename, rm } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { cacheRoot, type EngineName, engineDir } from './engine-paths'
import { runCommand } from './run-command'

export const ENGINE_BUILD_BACKENDS = ['cpu', 'vulkan', 'cuda', 'rocm'] as const
export type EngineBuildBackend = (typeof ENGINE_BUILD_BACKENDS)[number]

/** ggml's switch per backend (the SDK must be installed for all but cpu). */
export const GGML_BACKEND_FLAGS: Record<EngineBuildBackend, string[]> = {
  cpu: [],
  vulkan: ['-DGGML_VULKAN=ON'],
  cuda: ['-DGGML_CUDA=ON'],
  rocm: ['-DGGML_HIP=ON'],
}

/** Static, self-contained: no OpenMP runtime to ship, nothing fetched during the build. */
export const STATIC_FLAGS = ['-DCMAKE_BUILD_TYPE=Release', '-DBUILD_SHARED_LIBS=OFF', '-DGGML_OPENMP=OFF']

export type Run = (cmd: string, args: string[]) => Promise<string>
export interface Steps {
  run: Run
  say: (line: string) => void
}

export interface BuildOptions {
  backend?: EngineBuildBackend
  jobs?: number
  /** Rebuild even when the cache has this version. */
  force?: boolean
  onLine?: (line: string) => void
  signal?: AbortSignal
  /** Where the cache is (`SVC_CACHE_DIR`, `XDG_CACHE_HOME`, `HOME`): the caller's environment. */
  env: Record<string, string | undefined>
}

export interface BuildResult {
  path: string
  version: string
  cached: boolean
}

export function runner(options: { onLine?: (line: string) => void; signal?: AbortSignal }): Steps {
  const say = options.onLine ?? (() => {})
  const run: Run = (cmd, args) =>
    runCommand(cmd, args, { onLine: say, ...(options.signal ? { signal: options.signal } : {}) })
  return { run, say }
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** `<cache>/src/llama.cpp-<release>-<commit>`: cloned from the bundle once, shared by both engines. */
export async function llamaCheckout(
  root: string,
  source: { bundle: string; release: string; commit: string },
  { run, say }: Steps,
): Promise<string> {
  const dir = join(root, 'src', `llama.cpp-${source.release}-${source.commit}`)
  if (!existsSync(join(dir, 'CMakeLists.txt'))) {
    say(`cloning llama.cpp ${source.release} (${source.commit}) from ${source.bundle}`)
    await rm(dir, { recursive: true, force: true })
    await mkdir(dirname(dir), { recursive: true })
    await run('git', ['clone', '--quiet', source.bundle, dir])
  }
  return dir
}

export interface CmakeTargetOptions {
  src: string
  build: string
  flags: readonly string[]
  target: string
  /** Where the built binary is installed (renamed into place only when complete). */
  binary: string
  jobs?: number
  run: Run
  say: (line: string) => void
}

export async function cmakeTarget(o: CmakeTargetOptions): Promise<void> {
  await o.run('cmake', ['-S', o.src, '-B', o.build, ...o.flags])
  const jobs = o.jobs ?? availableParallelism()
  o.say(`building ${o.target} with ${jobs} jobs (a few minutes on first build)`)
  await o.run('cmake', ['--build', o.build, '--target', o.target, '-j', String(jobs)])
  await mkdir(dirname(o.binary), { recursive: true })
  await copyFile(join(o.build, 'bin', o.target), `${o.binary}.tmp`)
  await rename(`${o.binary}.tmp`, o.binary)
  o.say(`built ${o.binary}`)
}

/** What differs between two engine builds; the rest is {@link buildEngine}'s. */
export interface EngineBuildSpec {
  /** The engine: also its cmake target and the binary's name. */
  name: EngineName
  /** The cache key: `<cache>/engines/<name>/<version>/`. */
  version: string
  /** The cmake build directory, under `<cache>/build/`. */
  buildDir: string
  /** cmake flags beyond the static and the backend's. */
  flags: readonly string[]
  /** Lays out the source tree to configure (only when a build is needed); resolves with its path. */
  prepare(root: string, steps: Steps): Promise<string>
}

/**
 * Returns the cached build of `spec.version` unless `force`; otherwise prepares the source, configures,
 * builds the one target and installs the binary atomically. Blocks for minutes on a first build;
 * `signal` aborts the running compiler. Not safe to run twice at once for the same version.
 */
export async function buildEngine(spec: EngineBuildSpec, options: BuildOptions): Promise<BuildResult> {
  const env = options.env
  const backend = options.backend ?? 'cpu'
  const binary = join(engineDir(spec.name, spec.version, env), spec.name)
  if (!options.force && isExecutable(binary)) return { path: binary, version: spec.version, cached: true }

  const steps = runner(options)
  const root = cacheRoot(env)
  const src = await spec.prepare(root, steps)
  steps.say(`configuring (${backend})`)
  await cmakeTarget({
    src,
    build: join(root, 'build', spec.buildDir),
    flags: [...STATIC_FLAGS, ...spec.flags, ...GGML_BACKEND_FLAGS[backend]],
    target: spec.name,
    binary,
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...steps,
  })
  return { path: binary, version: spec.version, cached: false }
}
