/**
 * `svc engines build whisper-server`: builds upstream whisper.cpp's `whisper-server` with cmake into
 * `<cache>/engines/whisper-server/<version>/whisper-server`. A build that exists is reused; the binary
 * appears atomically (rename) only when complete.
 *
 * Sources, both from npm packages (this machine has no internet beyond npm):
 * - whisper.cpp (`src/`, `include/`, `examples/` with `server/`) from `@fugood/whisper.node`, which ships
 *   the whisper.cpp tree for its addon but, of ggml, only the headers and the CPU backend;
 * - ggml itself (core, CPU and GPU backends, its cmake files) from the llama.cpp source that
 *   `node-llama-cpp` ships (the same tree `llama-server` is built from). whisper.cpp and llama.cpp
 *   vendor the same ggml; the newer one only adds API and deprecates, so whisper.cpp builds against it.
 *
 * svc assembles the two with its own small CMakeLists.txt (whisper.cpp's own needs `cmake/` files the
 * package leaves out) and builds only the `whisper-server` target: static, no OpenSSL/curl, no OpenMP
 * runtime, nothing downloaded at build time.
 */
import { existsSync, readFileSync } from 'node:fs'
import { cp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { type BuildOptions, type BuildResult, buildEngine, llamaCheckout } from './cmake-build'
import { type LlamaSource, locateLlamaSource } from './llama-server-build'

export interface WhisperSource {
  /** The `whisper.cpp/` directory inside the installed `@fugood/whisper.node`. */
  dir: string
  /** whisper.cpp's version (its CMakeLists.txt), e.g. `1.9.3`. */
  whisperVersion: string
  /** The `@fugood/whisper.node` package version. */
  packageVersion: string
  /** Where ggml comes from. */
  ggml: LlamaSource
}

/**
 * Finds the whisper.cpp tree inside the installed `@fugood/whisper.node` (and the llama.cpp bundle
 * for ggml). Throws with what to do when a part is missing.
 */
export async function locateWhisperSource(): Promise<WhisperSource> {
  const require = createRequire(import.meta.url)
  let manifest: string
  try {
    manifest = require.resolve('@fugood/whisper.node/package.json')
  } catch {
    throw new Error('@fugood/whisper.node is not installed; reinstall dependencies (pnpm install)')
  }
  const dir = join(dirname(manifest), 'whisper.cpp')
  if (!existsSync(join(dir, 'examples', 'server', 'server.cpp')))
    throw new Error(`${dir} has no examples/server/server.cpp; this @fugood/whisper.node does not ship it`)
  const cmake = readFileSync(join(dir, 'CMakeLists.txt'), 'utf8')
  const part = (name: string) => new RegExp(`set\\(WHISPER_VERSION_${name}\\s+(\\d+)\\)`).exec(cmake)?.[1]
  const whisperVersion = [part('MAJOR'), part('MINOR'), part('PATCH')].join('.')
  if (!/^\d+\.\d+\.\d+$/.test(whisperVersion)) throw new Error(`cannot read whisper.cpp's version in ${dir}`)
  const packageVersion = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
  return { dir, whisperVersion, packageVersion, ggml: await locateLlamaSource() }
}

/** The build recipe: ggml, the whisper library, the examples' common code, the server. */
function cmakeLists(whisperVersion: string): string {
  return `# Written by svc (packages/providers/src/engines/whisper-server-build.ts).
cmake_minimum_required(VERSION 3.14)
project(svc-whisper-server C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(Threads REQUIRED)

add_subdirectory(ggml)

add_library(whisper STATIC whisper/src/whisper.cpp)
target_include_directories(whisper PUBLIC whisper/include whisper/src)
target_compile_definitions(whisper PRIVATE WHISPER_VERSION="${whisperVersion}")
target_link_libraries(whisper PUBLIC ggml Threads::Threads)

add_library(whisper-common STATIC
  whisper/examples/common.cpp
  whisper/examples/common-ggml.cpp
  whisper/examples/common-whisper.cpp
  whisper/examples/grammar-parser.cpp)
target_include_directories(whisper-common PUBLIC whisper/examples)
target_link_libraries(whisper-common PUBLIC whisper \${CMAKE_DL_LIBS})

add_executable(whisper-server whisper/examples/server/server.cpp)
target_link_libraries(whisper-server PRIVATE whisper-common whisper Threads::Threads)
set_target_properties(whisper-server PROPERTIES RUNTIME_OUTPUT_DIRECTORY \${CMAKE_BINARY_DIR}/bin)
`
}

/**
 * Builds `whisper-server` (or returns the cached build). Blocks for a few minutes on a first build;
 * `signal` aborts the running compiler. Not safe to run twice at once for the same version.
 */
export async function buildWhisperServer(options: BuildOptions): Promise<BuildResult> {
  const source = await locateWhisperSource()
  const ggml = source.ggml
  const version = `${source.whisperVersion}-whisper.node-${source.packageVersion}-ggml-${ggml.commit}-${options.backend ?? 'cpu'}`
  return buildEngine(
    {
      name: 'whisper-server',
      version,
      buildDir: `whisper-server-${version}`,
      flags: ['-DGGML_BUILD_TESTS=OFF', '-DGGML_BUILD_EXAMPLES=OFF'],
      async prepare(root, steps) {
        const llama = await llamaCheckout(root, ggml, steps)
        const src = join(root, 'src', `whisper-server-${version}`)
        steps.say(
          `assembling whisper.cpp ${source.whisperVersion} (@fugood/whisper.node ${source.packageVersion}) with ggml ${ggml.commit}`,
        )
        await rm(src, { recursive: true, force: true })
        for (const part of ['src', 'include', 'examples'])
          await cp(join(source.dir, part), join(src, 'whisper', part), { recursive: true })
        await cp(join(llama, 'ggml'), join(src, 'ggml'), { recursive: true })
        await writeFile(join(src, 'CMakeLists.txt'), cmakeLists(source.whisperVersion))
        return src
      },
    },
    options,
  )
}
