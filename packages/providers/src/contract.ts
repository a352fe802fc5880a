/**
 * The provider contract (docs/providers.md, "The contract"). Public: third parties import this module to
 * add a provider, and adding one changes no slot-manager code.
 *
 * A provider says *what* to run (argv, env, health, paths); a runtime (process / container / remote)
 * says *where*. Every function is pure with respect to its `SlotContext`, so the same provider runs
 * on the host, in a container, or is only probed at a remote URL.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Backend, LlmRole, ModelEntry, ProviderRoute, RuntimeKind } from '@svc/core'

// The request side of the contract (endpoints, request paths, translators, disguised errors) is
// defined in core, where the dispatcher reads it too.
export type {
  Backend,
  Endpoint,
  NormalisedReply,
  ProviderRoute,
  TranslateRequest,
  Translator,
} from '@svc/core'
export { ENDPOINTS } from '@svc/core'

/** Everything a provider may use to build the upstream's command line and env. */
export interface SlotContext {
  slot: string
  model: ModelEntry
  /** Path of the model *as the upstream sees it* (host path for a process, mount path in a container). */
  modelPath: string
  /** Path of the model's vision projector as the upstream sees it, when the model has one on disk. */
  mmprojPath?: string
  backend: Backend
  runtime: RuntimeKind
  /** llm only: what the slot is for. */
  role?: LlmRole
  /** Address and port the upstream must listen on (inside its own network namespace for containers). */
  host: string
  port: number
  ctxSize?: number
  /** Extra arguments from the slot config, appended last. */
  args: readonly string[]
  /**
   * A key svc made for this upstream (process and container runtimes). A provider whose engine can
   * require one passes it in `buildEnv` (never argv: `ps` shows argv to every user); the dispatcher
   * then sends it as `Authorization: Bearer`. Ignored, the upstream has no key.
   */
  apiKey?: string
}

/** A provider: what the dispatcher needs to send it requests (`ProviderRoute`), and how to run it. */
export interface Provider extends ProviderRoute {
  /** `llm` | `npu` | `stt` | `tts` | `image` | a third-party kind. */
  readonly kind: string
  /** Backends it can honour (the picker narrows these to what this machine has). */
  readonly backends: readonly Backend[]
  /** Env for the upstream (the env file of its container, or added to a host program's environment). */
  buildEnv(ctx: SlotContext): Record<string, string>
  /** argv: argv[0] is the program (resolved on the host by the process runtime, or run in the image). */
  startCommand(ctx: SlotContext): string[]
  /** One cheap probe; decides warming → ready. Must not throw (false on any failure). */
  healthProbe(base: URL, signal: AbortSignal): Promise<boolean>
  /** How long warming may take (model load). Default 120 s. */
  readonly warmupTimeoutMs?: number
  /**
   * Lines the upstream prints that tell its progress sooner than polling can (the process runtime
   * watches its log while it starts; patterns without the `g` flag): `listening` once it has bound
   * its port itself (starting → warming without asking /proc whose the port is), `ready` once it
   * answers requests (warming probes at once instead of at its next poll). Each only hastens its
   * step: without the line (another build prints otherwise) the port check and the probes decide.
   */
  readonly logLines?: { readonly listening?: RegExp; readonly ready?: RegExp }
  /** Refuses a model it cannot serve, with the reason (e.g. a GGUF on the NPU). */
  refuseModel?(model: ModelEntry): string | undefined
  /**
   * Name of the `manifests/images.toml` entry to run for a backend (container runtime); `model`, when
   * given, picks among the engines of a provider that runs several (tts: Kokoro or Chatterbox).
   */
  image?(backend: Backend, model?: ModelEntry): string | undefined
  /**
   * Where a model must run when the slot config names no runtime (tts: espeak-ng on the host, the
   * others in a container), so that swapping models is an ordinary load. Undefined = the picker's.
   */
  runtimeFor?(model: ModelEntry): RuntimeKind | undefined
}

/**
 * Probes `GET <base><path>` and answers whether it returned 2xx, within `signal`; false on any failure.
 * A plain node:http request on a connection of its own (closed after it), not `fetch`: a swap waits
 * for this probe, and fetch's streams and its pool entry per new upstream port cost ~1 ms of CPU.
 */
export function httpOk(base: URL, path: string, signal: AbortSignal): Promise<boolean> {
  const url = new URL(path, base)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve) => {
    try {
      const req = send(url, { signal, agent: false }, (res) => {
        res.resume()
        resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300)
      })
      req.on('error', () => resolve(false))
      req.end()
    } catch {
      resolve(false)
    }
  })
}
