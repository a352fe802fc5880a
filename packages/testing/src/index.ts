/**
 * `@svc/testing` (dev only): the parts svc's tests run against. Real programs wherever they run here,
 * stand-ins that speak the real protocol where they cannot.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// A missing real part: fail in CI, skip loudly elsewhere.
export * from './require-part'

// svc itself, started as its user starts it.
export * from './api-process'
export * from './svc-config'
// The built servers (`pnpm build`'s bundles), rebuilt when stale.
export * from './built'

// Real upstreams and the tiny models they load.
export * from './llama-server'
export * from './gguf/gguf-encoder'
export * from './gguf/tiny-llama'
export * from './gguf/tiny-mmproj'
export * from './gguf/tiny-vocab'
export * from './whisper/tiny-whisper'
export * from './whisper/whisper-vocab'

// Stand-ins for upstreams that cannot run here, speaking their protocols.
export * from './fake-upstream'
export * from './comfyui/index'
export * from './flm/flm-catalog'
export * from './flm/flm-program'
export * from './flm/flm-server'
export * from './chatterbox'

// Infrastructure: Docker Engine and a local registry, a file server for pulls.
export * from './docker'
export * from './docker-registry'
export * from './file-server'

// Requests as tests send them.
export * from './post-json'
