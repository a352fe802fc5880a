/**
 * `@svc/providers`: what runs a slot. This entry is public (a third-party provider imports its
 * contract from here) and reads as the package's table of contents. What only svc's own apps and
 * tests use is behind subpath exports: `@svc/providers/models` (catalogue, model store, downloads),
 * `@svc/providers/memory` (memory devices and load estimates), `@svc/providers/manifest` (pinned
 * container images) and `@svc/providers/internals` (runtime details).
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// The provider contract, and the helpers a provider is written with.
export * from './contract'
export * from './argv'

// The five providers (and what each needs from the app: an image cache, a voice store).
export * from './llm/llm-provider'
export * from './npu/npu-provider'
export { npuModelEntries } from './npu/flm-models'
export * from './stt/stt-provider'
export * from './tts/tts-provider'
export * from './tts/voice-store'
export * from './image/image-provider'
export * from './image/image-cache'

// Audio for the voice paths (streaming transcription, the Realtime API): decode, PCM, WAV, the VAD.
export * from './audio/index'

// The runtimes: where an upstream runs (host process, container, remote URL, swarm service, the
// NPU's shared server), and the glue from a provider and a runtime to core's SlotDriver port.
export * from './runtimes/runtime'
export * from './runtimes/process'
export * from './runtimes/container'
export * from './runtimes/remote'
export * from './runtimes/swarm'
export * from './runtimes/local-replicas'
export * from './npu/npu-runtime'
export * from './npu/shared-upstreams'
export * from './provider-driver'

// The picker: this machine's hardware, and which backends and runtimes each provider gets here.
export * from './picker/picker'
export * from './picker/detect'
export * from './picker/decide'
export * from './picker/runnable'
