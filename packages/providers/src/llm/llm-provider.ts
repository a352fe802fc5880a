/**
 * The llama.cpp provider: upstream `llama-server` (docs/providers.md, "llm").
 *
 * argv per role — chat: `--jinja` (tool calling; default-on only in new builds); embed:
 * `--embeddings --pooling mean`; rerank: `--reranking` — and per backend: vulkan/rocm/cuda offload
 * every layer (`-ngl 999`), cpu none (`-ngl 0`). Always `--host`, `--port`, `--alias <ref>` (the id
 * `/v1/models` reports) and `--metrics`; `--mmproj <file>` for a model with a vision projector. Extra `args` from the slot config come last, and a flag the
 * user gives there replaces ours (`--pooling cls` wins over the default `mean`); a preset's args
 * follow the slot's, and a preset's `ctx_size` is given last of all (`-c`).
 */
import type { ModelEntry } from '@svc/core'
import { listenArgs, upstreamArgv } from '../argv'
import { type Backend, type Endpoint, httpOk, type Provider, type SlotContext } from '../contract'
import { normaliseLlamaError } from './llama-errors'
import { carryToLlamaServer } from './llama-request'

const PATHS: Partial<Record<Endpoint, string>> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  rerank: '/v1/rerank',
  // llama-server speaks these surfaces itself: relayed as they come (llama-request.ts carries what
  // it would ignore).
  responses: '/v1/responses',
  'chat-input-tokens': '/v1/chat/completions/input_tokens',
  'responses-input-tokens': '/v1/responses/input_tokens',
  messages: '/v1/messages',
  'messages-count-tokens': '/v1/messages/count_tokens',
}

/** The `manifests/images.toml` entry per backend (container runtime). */
const IMAGES: Partial<Record<Backend, string>> = {
  vulkan: 'llama-vulkan-radv',
  rocm: 'llama-rocm',
  cuda: 'llama-cuda',
  cpu: 'llama-cpu',
}

export interface LlmProviderOptions {
  /** How long a model may take to load (ms). Default 10 min: big GGUFs from slow disks take a while. */
  warmupTimeoutMs?: number
}

export function llamaServerArgs(ctx: SlotContext): string[] {
  const argv = upstreamArgv(ctx.args).fixed(
    '-m',
    ctx.modelPath,
    ...listenArgs(ctx),
    '--alias',
    ctx.model.id,
    '--metrics',
  )
  // The projector belongs to the model (a swap of projector is a new load), so it is fixed.
  if (ctx.mmprojPath) argv.fixed('--mmproj', ctx.mmprojPath)
  const role = ctx.role ?? 'chat'
  if (role === 'chat') argv.default('--jinja')
  if (role === 'embed') argv.default('--embeddings').default('--pooling', 'mean')
  if (role === 'rerank') argv.default('--reranking')
  argv.default('-ngl', ctx.backend === 'cpu' ? '0' : '999')
  // A preset's context size wins over a `-c` in the slot's args: given last, it is the one
  // llama-server keeps (docs/models.md, "Presets").
  const presetCtx = ctx.model.engine?.ctxSize
  if (ctx.ctxSize !== undefined && presetCtx === undefined) argv.default('-c', String(ctx.ctxSize))
  const argvBuilt = argv.build()
  return presetCtx === undefined ? argvBuilt : [...argvBuilt, '-c', String(presetCtx)]
}

/**
 * What llama-server prints as it starts (tools/server/server.cpp, server-context.cpp): it binds its
 * HTTP port first ("HTTP server is listening" in older builds), then logs "loading model '…'", and
 * "model loaded" right after /health turns 200 (is_ready is set before the line). A bind failure
 * exits with "couldn't bind" instead, so either listening line means the port is its own.
 */
export const LLAMA_SERVER_LINES = {
  listening: /HTTP server is listening|\bloading model '/,
  ready: /\bmodel loaded\b/,
} as const

export function createLlmProvider(options: LlmProviderOptions = {}): Provider {
  return {
    kind: 'llm',
    backends: ['vulkan', 'rocm', 'cuda', 'cpu'],
    endpoints: Object.keys(PATHS) as Endpoint[],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 600_000,
    // llama-server requires the key on every route but /health (and its UI); it reads LLAMA_API_KEY.
    buildEnv: (ctx): Record<string, string> => (ctx.apiKey ? { LLAMA_API_KEY: ctx.apiKey } : {}),
    startCommand: (ctx) => ['llama-server', ...llamaServerArgs(ctx)],
    // 503 while loading, 200 once ready; connection refused before the port opens.
    healthProbe: (base, signal) => httpOk(base, '/health', signal),
    logLines: LLAMA_SERVER_LINES,
    requestPath(endpoint) {
      const path = PATHS[endpoint]
      if (!path) throw new Error(`llama-server does not serve ${endpoint}`)
      return path
    },
    prepareBody: carryToLlamaServer,
    // A prompt over the context: 400 context.too_long with both sizes (llama-errors.ts).
    normaliseError: normaliseLlamaError,
    refuseModel: (model: ModelEntry) =>
      model.format === 'gguf'
        ? undefined
        : `llama-server loads GGUF files; "${model.id}" is a ${model.format} model`,
    image: (backend) => IMAGES[backend],
  }
}
