import type { Runtime, RuntimeStartRequest } from '../runtimes/runtime'
import { flmModel } from './flm-models'
import { createSharedUpstreams, type Holder, type SharedUpstreams, shareRuntime } from './shared-upstreams'

/**
 * Name the shared FLM upstream runs under (pid file, log file, container label). It starts with "_",
 * which no slot name may, so it never collides with a slot.
 */
export const NPU_SHARED_KEY = '_npu'

/**
 * The runtime every NPU slot uses: `inner` (process or container) wrapped so that all NPU slots share
 * one `flm serve` — only one NPU upstream at a time. FastFlowLM keeps one language model loaded and
 * swaps it whenever a request names another, so two slots may not hold different LLM tags at once:
 * the second is refused with `backend.unavailable`. The ASR and embedding models ride along with any.
 * Build one per svc process and give the same `registry` to every NPU slot.
 */
export function createNpuRuntime(
  inner: Runtime,
  registry: SharedUpstreams<RuntimeStartRequest> = createSharedUpstreams(),
): Runtime {
  return shareRuntime(inner, { key: NPU_SHARED_KEY, registry, admit: admitOnNpu })
}

/** Refuses a second, different LLM tag on the NPU; everything else shares. */
export function admitOnNpu(
  request: RuntimeStartRequest,
  others: readonly Holder<RuntimeStartRequest>[],
): string | undefined {
  const mine = flmModel(request.model.id)
  if (mine?.kind !== 'llm') return undefined
  for (const other of others) {
    const theirs = flmModel(other.meta.model.id)
    if (theirs?.kind === 'llm' && theirs.tag !== mine.tag) {
      return `the NPU is serving ${theirs.tag} for slot "${other.owner}" and FastFlowLM holds one language model at a time; unload "${other.owner}" first`
    }
  }
  return undefined
}
