import type { ModelEntry } from '@svc/core'
import type { SlotContext } from '../src/contract'

/**
 * What a provider is told for `model` on the host: the process runtime listening on 127.0.0.1:4321,
 * cpu, the slot named after the provider, the model at its path (else its id), no slot args. `over`
 * sets anything else (slot, backend, port, args…).
 */
export function hostSlotContext(model: ModelEntry, over: Partial<SlotContext> = {}): SlotContext {
  return {
    slot: model.provider,
    model,
    modelPath: model.path ?? model.id,
    backend: 'cpu',
    runtime: 'process',
    host: '127.0.0.1',
    port: 4321,
    args: [],
    ...over,
  }
}
