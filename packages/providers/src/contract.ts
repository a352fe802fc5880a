/**
 * The provider contract (DESIGN.md "Provider contract"). Public: third parties import this module to
 * add a provider, and adding one changes no slot-manager code.
 *
 * A provider says *what* to run (argv, env, health, paths); a runtime (process / container / remote)
 * says *where*. Every function is pure with respect to its `SlotContext`, so the same provider runs
 * on the host, in a container, or is only probed at a remote URL.
 */
import type { Backend, LlmRole, ModelEntry, RuntimeKind } from '@svc/core'

export type { Backend } from '@svc/core'

export const ENDPOINTS = [
  'chat',
  'completions',
  'embeddings',
  'rerank',
  'transcriptions',
  'speech',
  'images',
] as const
export type Endpoint = (typeof ENDPOINTS)[number]

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
}

/** The part of an OpenAI request a translator gets (already validated JSON, or the raw request). */
export interface TranslateRequest {
  endpoint: Endpoint
  /** The parsed JSON body. */
  body: Record<string, unknown>
  /**
   * The body exactly as the client sent it: JSON.parse loses integers above 2^53 (image seeds go up
   * to 2^64 − 1), so a translator that needs them exact reads them from here.
   */
  rawBody?: string
  /** Base URL of the running upstream. */
  base: URL
  /** Model ref the slot holds. */
  model: ModelEntry
  /** Aborts when the client goes away; the translator must stop upstream work then. */
  signal: AbortSignal
}

/**
 * For endpoints the upstream does not speak natively (OpenAI images → ComfyUI workflow). Returns the
 * response to send; throws `SvcError` for request errors (400) and upstream failures (502/504).
 */
export interface Translator {
  readonly endpoints: readonly Endpoint[]
  /**
   * Whether this request needs the translator; when false the dispatcher proxies it to the upstream
   * as usual. Absent = always (for its endpoints).
   */
  appliesTo?(request: Pick<TranslateRequest, 'endpoint' | 'model' | 'body'>): boolean | Promise<boolean>
  handle(request: TranslateRequest): Promise<Response>
}

export interface Provider {
  /** `llm` | `npu` | `stt` | `tts` | `image` | a third-party kind. */
  readonly kind: string
  /** Backends it can honour (the picker narrows these to what this machine has). */
  readonly backends: readonly Backend[]
  /** OpenAI endpoints it serves. */
  readonly endpoints: readonly Endpoint[]
  /** Env for the upstream (the env file of its container, or added to the host process env). */
  buildEnv(ctx: SlotContext): Record<string, string>
  /** argv: argv[0] is the program (resolved on the host by the process runtime, or run in the image). */
  startCommand(ctx: SlotContext): string[]
  /** One cheap probe; decides warming → ready. Must not throw (false on any failure). */
  healthProbe(base: URL, signal: AbortSignal): Promise<boolean>
  /** The upstream path the dispatcher proxies `endpoint` to. */
  requestPath(endpoint: Endpoint): string
  translate?: Translator
  /** How long warming may take (model load). Default 120 s. */
  readonly warmupTimeoutMs?: number
  /** Refuses a model it cannot serve, with the reason (e.g. a GGUF on the NPU). */
  refuseModel?(model: ModelEntry): string | undefined
  /** The `model` field to send upstream, when the upstream cares (FLM switches models on it). */
  upstreamModel?(ctx: Pick<SlotContext, 'model'>): string | undefined
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
  /**
   * For upstreams whose errors look like successes (FastFlowLM: HTTP 200 with `{"error": …}` or
   * `null`): judges a whole non-streaming JSON reply (`body` parsed; `null` when empty) and returns
   * the error to send instead, or undefined to pass it on. Setting it makes the dispatcher read such
   * replies whole before answering; SSE streams pass through untouched.
   */
  normaliseBody?(
    status: number,
    body: unknown,
  ): { status: number; body: unknown; headers: Record<string, string> } | undefined
}

/** Probes `GET <base><path>` and answers whether it returned 2xx, within `signal`. */
export async function httpOk(base: URL, path: string, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await fetch(new URL(path, base), { signal })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}
