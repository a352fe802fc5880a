/**
 * `@svc/engines`: the engine binaries svc runs on the host. A package of its own (not part of
 * `@svc/core`, which stays runtime-neutral, nor of `@svc/providers`) so that `@svc/testing` can find
 * the same binaries the providers run without a dependency cycle (`@svc/providers` tests use
 * `@svc/testing`).
 */

// Where an engine is: names, the cache layout, the lookup order (env var, PATH, cache).
export * from './engine-paths'

// Building an engine from the source an npm package ships (`svc engines build`).
export * from './llama-server-build'
export * from './whisper-server-build'
