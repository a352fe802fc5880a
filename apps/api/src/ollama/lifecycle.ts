/**
 * Ollama's own way to load and unload a model, and its `keep_alive`, on svc's slots:
 *
 * - load: `/api/chat` with no messages, `/api/generate` with no prompt (and no images), `/api/embed`
 *   with no input. The model is brought in as any request would bring it (a lease on the slot that
 *   holds it; a slot that loads on request loads it), then answered `done_reason: "load"` in one
 *   JSON object, streamed or not, as Ollama does. It loads nothing a request could not.
 * - unload: the same with `keep_alive: 0`: the slot holding the model unloads and the answer says
 *   `done_reason: "unload"` once it is offline. Unloading is a slot change: with auth on it needs a
 *   caller that may manage slots (admin), else 403 `auth.forbidden`.
 * - `keep_alive` on any request of such a caller (`keep-alive.ts`) becomes the slot's idle unload
 *   while it holds that model (`SlotManager.keepAlive`); absent, the slot's own `unload_after`
 *   applies again (Ollama falls back to its default the same way). Other callers' `keep_alive` is
 *   read (garbage is a 400) and not applied: it would change the slot for everyone.
 */
import { type Slot, SvcError } from '@svc/core'
import { modelFacts } from '@svc/providers/models'
import type { PresetsState } from '../slots/presets-watch'
import type { SlotSystem } from '../slots/slot-system'
import { svcModelName } from './names'

export interface LifecycleDeps {
  slots: SlotSystem
  upstreamRefs?: () => { id: string }[]
  /** How long a load may take before 503 (SVC_QUEUE_TIMEOUT, ms). */
  queueTimeoutMs?: number
  /** Presets (`presets.toml`): an alias or variant loads the engine it runs on. */
  presets?: PresetsState
}

/** What a name is: a slot (and the ref asked for, when it was one), or a hosted upstream's model. */
type Holder = { kind: 'slot'; slot: Slot; ref?: string } | { kind: 'hosted' }

const DEFAULT_QUEUE_TIMEOUT_MS = 120_000

/**
 * The slot a request for `name` would use, resolved as `/v1` resolves `model` (a slot name, a ref a
 * slot holds, a hosted ref, a ref a slot loads on request); 409 `model.not_loaded` for a known ref
 * nothing would load, 404 `model.not_found` otherwise.
 */
async function holderOf(deps: LifecycleDeps, name: string): Promise<Holder> {
  const id = runsAs(deps, name)
  const { manager, store } = deps.slots
  if (manager.has(id)) return { kind: 'slot', slot: manager.get(id) }
  const owner = manager.findByModel(id)
  if (owner) return { kind: 'slot', slot: owner, ref: id }
  if (deps.upstreamRefs?.().some((r) => r.id === id)) return { kind: 'hosted' }
  const home = await manager.routeRef(id)
  if (home) return { kind: 'slot', slot: home, ref: id }
  if (await store.get(deps.presets?.table.loadTarget(id)?.model ?? id))
    throw new SvcError('model.not_loaded', `model "${name}" is not loaded in any slot`, { param: 'model' })
  throw new SvcError('model.not_found', `model "${name}" does not exist`, { param: 'model' })
}

/**
 * Loads what `name` names for a request of `surface` (`chat`, `generate` need a chat model;
 * `embed` an embedding one): resolves once it is ready. Returns the slot and the ref it holds
 * (undefined for a hosted model, which is always "loaded").
 */
export async function loadModel(
  deps: LifecycleDeps,
  name: string,
  surface: 'chat' | 'generate' | 'embed',
  signal: AbortSignal,
  /** Runs with the model ready, before the lease is given back (to apply `keep_alive`). */
  loaded?: (model: string) => void,
): Promise<{ slot: string; model: string } | undefined> {
  const holder = await holderOf(deps, name)
  if (holder.kind === 'hosted') return undefined
  const { slot } = holder
  const config = deps.slots.manager.config(slot.name)
  // What the slot would run: the ref asked for, else what it holds (an empty slot: model.not_loaded below).
  const planned = holder.ref ? await deps.slots.store.get(holder.ref) : slot.currentModel()
  const facts = await modelFacts(planned ?? undefined, { provider: config.provider, role: config.role })
  const needs = surface === 'embed' ? 'embeddings' : 'chat'
  // A remote upstream decides for itself what it serves.
  if (config.runtime !== 'remote' && !facts.capabilities.includes(needs))
    throw new SvcError('request.invalid', `"${name}" does not support ${surface}`, { param: 'model' })
  const lease = await deps.slots.manager.acquire(slot.name, {
    ...(holder.ref ? { ref: holder.ref } : {}),
    signal,
    timeoutMs: deps.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS,
  })
  const model = lease.model.id
  try {
    loaded?.(model)
  } finally {
    lease.release()
  }
  return { slot: slot.name, model }
}

/**
 * Unloads the slot holding what `name` names and resolves once it is offline. A known model that no
 * slot holds (or a hosted one) needs nothing: it is not loaded. Unknown: 404.
 */
export async function unloadModel(deps: LifecycleDeps, name: string): Promise<void> {
  const id = runsAs(deps, name)
  const { manager } = deps.slots
  const slot = manager.has(id) ? manager.get(id) : manager.findByModel(id)
  if (slot) {
    if (slot.currentModel()) await manager.unload(slot.name)
    return
  }
  const known = await deps.slots.store.get(deps.presets?.table.loadTarget(id)?.model ?? id)
  if (deps.upstreamRefs?.().some((r) => r.id === id) || known) return
  throw new SvcError('model.not_found', `model "${name}" does not exist`, { param: 'model' })
}

/**
 * Applies a request's `keep_alive` (ms, Infinity; undefined: absent) to the slot holding `model`,
 * for a caller that may manage slots. Call it while the request's lease is held, so the idle moment
 * that follows reads it.
 */
export function applyKeepAlive(deps: LifecycleDeps, model: string, keepAliveMs: number | undefined): void {
  const slot = deps.slots.manager.findByModel(model)
  if (slot) deps.slots.manager.keepAlive(slot.name, model, keepAliveMs ?? null)
}

/**
 * The name `name` runs under, as the dispatcher resolves it: Ollama's `:latest` dropped, a preset's
 * alias or variant to its engine's load name, a Hub name in another spelling to its canonical one.
 */
function runsAs(deps: LifecycleDeps, name: string): string {
  const id = svcModelName(name)
  return deps.presets?.table.resolveAlias(id) ?? deps.slots.store.hubNames.alias(id) ?? id
}
