/**
 * A slot whose provider says where each of its models runs (`Provider.runtimeFor`: the tts slot runs
 * espeak-ng on the host, Kokoro and Chatterbox in containers) and whose config names no runtime gets
 * this runtime: it hands every request to the runtime of the model in it, so that swapping one model
 * for the other is an ordinary load. Leftovers of a previous svc run are looked for in every runtime.
 */
import type { ModelEntry, RuntimeKind, UpstreamHandle } from '@svc/core'
import type { Runtime, RuntimeStartRequest } from '@svc/providers'

export interface ModelRoutedRuntimeOptions {
  /** The kind reported for the slot (the placement's default). */
  kind: RuntimeKind
  /** The runtime that runs `model`. May throw (e.g. no container engine here). */
  runtimeOf(model: ModelEntry): Runtime
  /** Every runtime a model of this slot may use, for `recover`. */
  candidates(): Runtime[]
}

export function createModelRoutedRuntime(options: ModelRoutedRuntimeOptions): Runtime {
  const of = (req: RuntimeStartRequest) => options.runtimeOf(req.model)
  return {
    kind: options.kind,
    needsPull: async (req) => (await of(req).needsPull?.(req)) ?? false,
    pull: async (req, onProgress) => of(req).pull?.(req, onProgress),
    start: (req) => of(req).start(req),
    async recover(slot, isHealthy, signal) {
      let adopted: { modelId: string; handle: UpstreamHandle } | undefined
      for (const runtime of options.candidates()) {
        const found = await runtime.recover?.(slot, isHealthy, signal)
        if (!found) continue
        // Two leftovers for one slot cannot both serve it: keep the first, stop the other.
        if (adopted) await found.handle.stop(5_000)
        else adopted = found
      }
      return adopted
    },
  }
}
