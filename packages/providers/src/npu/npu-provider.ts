/**
 * The NPU provider: FastFlowLM (`flm serve`) on an AMD XDNA2 NPU (docs/providers.md, "npu").
 *
 * One upstream serves every NPU slot: it is always started with speech recognition and embeddings on
 * (`--asr 1 --embed 1`), preloading the chat tag when the slot that starts it holds an LLM; chat,
 * embed and stt slots on the NPU share it through `shareRuntime` (shared-upstreams.ts). Because FLM
 * hot-swaps its LLM whenever a request names another tag, `upstreamModel` rewrites `model` to the
 * slot's own tag on every request. Health is `GET /api/tags` (FLM has no /health).
 */
import type { ModelEntry } from '@svc/core'
import { listenArgs } from '../argv'
import { type Endpoint, httpOk, type Provider, type SlotContext } from '../contract'
import { normaliseFlmBody } from './flm-errors'
import { FLM_MODELS, flmModel, flmModelId } from './flm-models'

const PATHS: Partial<Record<Endpoint, string>> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  transcriptions: '/v1/audio/transcriptions',
}

/** The `manifests/images.toml` entry of the locally built FLM image. */
export const NPU_IMAGE = 'flm-npu'

export interface NpuProviderOptions {
  /** `--pmode` (powersaver | balanced | performance | turbo). Default: FLM's own. */
  powerMode?: string
  /** How long warming may take (ms). Default 10 min: FLM downloads a tag's weights on first use. */
  warmupTimeoutMs?: number
}

/** A provider whose non-streaming JSON replies need normalising (the dispatcher applies it). */
export interface NpuProvider extends Provider {
  normaliseBody: typeof normaliseFlmBody
}

/** `flm serve [<tag>] --host H --port P --asr 1 --embed 1 --quiet [--ctx-len N] [--pmode M] <args>`. */
export function flmServeArgs(ctx: SlotContext, powerMode?: string): string[] {
  const model = flmModel(ctx.model.id)
  const argv = ['serve']
  if (model?.kind === 'llm') argv.push(model.tag)
  argv.push(...listenArgs(ctx), '--asr', '1', '--embed', '1', '--quiet')
  if (ctx.ctxSize !== undefined && !ctx.args.includes('--ctx-len'))
    argv.push('--ctx-len', String(ctx.ctxSize))
  if (powerMode && !ctx.args.includes('--pmode')) argv.push('--pmode', powerMode)
  return [...argv, ...ctx.args]
}

export function createNpuProvider(options: NpuProviderOptions = {}): NpuProvider {
  return {
    kind: 'npu',
    backends: ['npu'],
    endpoints: ['chat', 'completions', 'embeddings', 'transcriptions'],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 600_000,
    // Offline containers must not stall on FLM's version check.
    buildEnv: () => ({ FLM_DISABLE_UPDATE_CHECK: '1' }),
    startCommand: (ctx) => ['flm', ...flmServeArgs(ctx, options.powerMode)],
    healthProbe: (base, signal) => httpOk(base, '/api/tags', signal),
    requestPath(endpoint) {
      const path = PATHS[endpoint]
      if (!path) throw new Error(`FastFlowLM does not serve ${endpoint}`)
      return path
    },
    refuseModel: (model: ModelEntry) => refuseOnNpu(model),
    upstreamModel: ({ model }) => flmModel(model.id)?.tag,
    image: (backend) => (backend === 'npu' ? NPU_IMAGE : undefined),
    normaliseBody: normaliseFlmBody,
  }
}

/** Why `model` cannot run on the NPU, or undefined when it can. */
export function refuseOnNpu(model: ModelEntry): string | undefined {
  if (model.format !== 'npu') {
    return `the NPU runs FastFlowLM models (e.g. ${flmModelId('qwen3:4b')}), not ${model.format} files: "${model.id}" is a ${model.format} model; load it on a llama.cpp slot (provider "llm") instead`
  }
  if (!flmModel(model.id)) {
    const some = FLM_MODELS.slice(0, 4)
      .map((m) => flmModelId(m.tag))
      .join(', ')
    return `"${model.id}" is not in FastFlowLM's model list (ids are flm-<tag>, e.g. ${some})`
  }
  return undefined
}
