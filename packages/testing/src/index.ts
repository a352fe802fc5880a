/**
 * `@svc/testing` (dev only): the parts svc's tests run against. Real programs wherever they run here,
 * stand-ins that speak the real protocol where they cannot.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// The test run's environment, read once; a missing real part: fail in CI, skip loudly elsewhere.
export * from './test-env'
export * from './require-part'
export * from './program-available'

// A child process a test starts: its output kept, a wait for its ready line, a stop.
export * from './watched-child'
export * from './server-process'

// svc itself, started as its user starts it.
export * from './api-process'
export * from './svc-config'
// A full GC in svc through its inspector, before a memory reading.
export * from './full-gc'
// The built servers (`pnpm build`'s bundles), rebuilt when stale.
export * from './built'
// The environment that keeps svc's own commands on loopback and in a temp dir.
export * from './loopback-env'
// svc's CLI, run to its exit.
export * from './svc-cli'
// Temp dirs a test removes in one call.
export * from './temp-dirs'

// Real upstreams and the tiny models they load.
export * from './llama-server'
export * from './gguf/gguf-encoder'
export * from './gguf/filler-gguf'
export * from './gguf/tiny-llama'
export * from './gguf/tiny-mmproj'
export * from './gguf/tiny-vocab'
export * from './whisper/tiny-whisper'
export * from './whisper/whisper-vocab'
// Real speech (espeak-ng) with pauses of known length, for the voice tests.
export * from './spoken-pauses'

// Stand-ins for upstreams that cannot run here, speaking their protocols.
export * from './fake-upstream'
export * from './comfyui/index'
export * from './flm/flm-catalog'
export * from './flm/flm-program'
export * from './flm/flm-server'
export * from './chatterbox'
// llama-server's routes answered the way the engine is known to be wrong (conformance tests).
export * from './wrong-engine'

// The real browser (Debian's Chromium through playwright-core).
export * from './chromium'
export * from './screenshots'

// Infrastructure: Docker Engine and a local registry, a file server for pulls, Caddy.
export * from './docker'
export * from './docker-registry'
export * from './file-server'
// The Hugging Face Hub and its CDN (two origins), serving repos a test writes; split GGUFs and a
// tiny chat model's quants for them.
export * from './hub/hub-repo'
export * from './hub/hub-stand-in'
export * from './hub/split-gguf'
export * from './hub/tiny-chat-quants'
export * from './caddy'

// Requests as tests send them.
export * from './post-json'
export * from './oversized-upload'
export * from './proc-environ'
// A program's table of environment variables against its docs page.
export * from './env-docs'
// The Node svc is set up with (scripts/install-node.sh's pin) and what a test accepts.
export * from './node-pin'
