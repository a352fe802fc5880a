/**
 * What a slot loads when someone names a model: the entry for a curated id, registry ref, URL or
 * local path (a remote slot: a name its remote serves, see remote-model.ts), refused with the reason
 * when the slot's provider or this machine cannot serve it.
 */
import { type LoadOptions, type ModelEntry, type SlotConfig, SvcError } from '@svc/core'
import type { Provider } from '@svc/providers'
import type { ModelStore } from '@svc/providers/models'
import type { Placer } from './placement'
import { resolveRemoteModel } from './remote-model'

const BUILTIN_KINDS = ['llm', 'image', 'stt', 'tts']

export function createModelResolver(deps: {
  store: ModelStore
  providerFor(config: SlotConfig): Provider
  placer: Placer
}): (id: string, config: SlotConfig, options?: LoadOptions) => Promise<ModelEntry> {
  return async (id, config, options) => {
    const provider = deps.providerFor(config)
    // Local hardware and local files do not apply to a model that runs elsewhere.
    if (deps.placer.place(config).runtime === 'remote') return resolveRemoteModel(id, config, deps.store)
    if (!id) throw new SvcError('request.invalid', 'model is required', { param: 'model' })
    // The store asks before it registers a new path or URL: a refused load leaves no ref behind.
    return deps.store.resolve(id, {
      ...(options?.sha256 ? { sha256: options.sha256 } : {}),
      ...(options?.mmproj ? { mmproj: options.mmproj } : {}),
      accept: async (entry) => {
        refuseWrongKind(entry, config)
        const refusal = provider.refuseModel?.(entry)
        if (refusal) throw new SvcError('request.invalid', refusal, { param: 'model' })
        await deps.placer.check(config, entry)
      },
    })
  }
}

/** A built-in provider's model named for another built-in provider's slot (a GGUF for `tts`, say). */
function refuseWrongKind(entry: ModelEntry, config: SlotConfig): void {
  if (
    BUILTIN_KINDS.includes(config.provider) &&
    BUILTIN_KINDS.includes(entry.provider) &&
    entry.provider !== config.provider
  ) {
    throw new SvcError(
      'request.invalid',
      `model "${entry.id}" is for the ${entry.provider} provider; slot "${config.name}" runs ${config.provider}`,
      { param: 'model' },
    )
  }
}
