/**
 * What a remote slot loads (remote slots without ceremony). A remote upstream has its own
 * model files, so its "model" is a name the remote serves, not a local file: the one the load or the
 * slot file (`model = "name"`) names — checked against the remote's `/v1/models` when it answers —
 * or, when none is named, the first the remote lists. A curated id keeps its catalogue entry (a
 * remote ComfyUI running `sdxl-turbo`); nothing is ever pulled for a remote slot.
 */
import { stat } from 'node:fs/promises'
import { type ModelEntry, type SlotConfig, SvcError } from '@svc/core'
import type { Provider } from '@svc/providers'
import { fetchRemoteModels } from '@svc/providers/internals'
import type { ModelStore } from '@svc/providers/models'

/** The URLs of a remote slot (`url` or `urls`). */
export function remoteUrls(config: SlotConfig): string[] {
  return config.urls ?? (config.url ? [config.url] : [])
}

export async function resolveRemoteModel(
  id: string,
  config: SlotConfig,
  store: Pick<ModelStore, 'get' | 'resolve'>,
): Promise<ModelEntry> {
  const known = id ? await store.get(id) : undefined
  if (known) return known
  const listed = await fetchRemoteModels(remoteUrls(config))
  // Before svc asked the remote, a remote slot was loaded with a local file or a URL as its "model":
  // such a load still works (nothing is read or pulled), unless the remote serves a model of that name.
  const listedHere = listed.ok && listed.models.includes(id)
  if (id && !listedHere && (/^https?:\/\//i.test(id) || (await isFile(id)))) return store.resolve(id)
  let name = id
  if (!name) {
    if (!listed.ok) {
      throw new SvcError(
        'upstream.unavailable',
        `slot "${config.name}" names no model and its remote's /v1/models did not answer (${listed.errors.join('; ')}); name one with --model or model = "…" in slots/${config.name}.toml`,
      )
    }
    const first = listed.models[0]
    if (!first) {
      throw new SvcError('model.not_found', `the remote at ${listed.url} lists no models`, { param: 'model' })
    }
    name = first
  } else if (listed.ok && listed.models.length > 0 && !listed.models.includes(name)) {
    throw new SvcError(
      'model.not_found',
      `the remote at ${listed.url} serves no model "${name}" (it serves: ${listed.models.join(', ')})`,
      { param: 'model' },
    )
  }
  // A remote that does not answer now may later: the load waits in warming for it.
  return {
    id: name,
    format: 'remote',
    provider: config.provider,
    source: 'remote',
    ...(config.role ? { role: config.role } : {}),
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false
}

const remoteProviders = new WeakMap<Provider, Provider>()

/**
 * The provider as a remote slot uses it: requests go out with the remote's own model name (a client
 * may have sent the slot's name, which means nothing to the remote). A model svc knows by a file or
 * the catalogue keeps the client's `model`, as before. Cached, so the dispatcher's per-request lookup
 * allocates nothing.
 */
export function remoteProvider(provider: Provider): Provider {
  let wrapped = remoteProviders.get(provider)
  if (!wrapped) {
    const upstreamModel: Provider['upstreamModel'] = (ctx) =>
      provider.upstreamModel?.(ctx) ?? (ctx.model.source === 'remote' ? ctx.model.id : undefined)
    // A prototype link, not a spread: a third-party provider may be a class with methods.
    wrapped = Object.assign(Object.create(provider) as Provider, { upstreamModel })
    remoteProviders.set(provider, wrapped)
  }
  return wrapped
}
