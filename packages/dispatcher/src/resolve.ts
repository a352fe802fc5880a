/**
 * Resolution of the `model` field (docs/architecture.md, "A request's path"): slot name → its model; registry ref →
 * the slot that owns it; upstream ref → the hosted service; a known ref in no slot → 409
 * `model.not_loaded`; anything else → 404 `model.not_found`. `/v1/images/*` is pinned to `img`.
 * A preset's name (an alias or a variant, `presets.toml`) resolves as the name its engine is
 * loaded under, so a variant finds the slot that holds its base.
 */
import { type Slot, type SlotManager, SvcError } from '@svc/core'
import type { RequestPresets } from './dispatch-types'
import type { EndpointSpec } from './endpoints'
import { type HostedUpstream, matchUpstream } from './upstreams'

export type Target =
  /** `ref`: the model asked for (undefined when the request named the slot). */
  { kind: 'slot'; slot: Slot; ref?: string } | { kind: 'hosted'; upstream: HostedUpstream; model: string }

export interface ResolveDeps {
  slots: SlotManager
  upstreams: () => readonly HostedUpstream[]
  /** Whether svc knows the ref (curated, pulled or local), loaded or not. */
  isKnownModel: (id: string) => Promise<boolean>
  presets?: Pick<RequestPresets, 'resolveAlias'> | undefined
}

/**
 * The target at once (no promise) for a slot name, a ref a slot holds or a hosted ref: what nearly
 * every request names, and a promise costs more than the lookups. A promise otherwise; its refusals
 * (`SvcError`) come as the promise's rejection.
 */
export function resolveTarget(
  model: string | undefined,
  spec: EndpointSpec,
  deps: ResolveDeps,
): Target | Promise<Target> {
  if (spec.pinnedSlot) return resolvePinned(model, spec.pinnedSlot, deps)
  if (!model) return Promise.reject(new SvcError('request.invalid', 'model is required', { param: 'model' }))
  const name = deps.presets?.resolveAlias(model) ?? model
  if (deps.slots.has(name)) return { kind: 'slot', slot: deps.slots.get(name) }
  const owner = deps.slots.findByModel(name)
  if (owner) return { kind: 'slot', slot: owner, ref: name }
  const hosted = matchUpstream(name, deps.upstreams())
  if (hosted) return { kind: 'hosted', ...hosted }
  return resolveUnheld(name, deps)
}

/** A ref no slot holds: the slot that loads it on request, else 409 `model.not_loaded` or 404. */
async function resolveUnheld(model: string, deps: ResolveDeps): Promise<Target> {
  // A slot that loads on request takes a known ref no slot holds (undefined: none does).
  const home = await deps.slots.routeRef(model)
  if (home) return { kind: 'slot', slot: home, ref: model }
  if (await deps.isKnownModel(model)) {
    throw new SvcError(
      'model.not_loaded',
      `model "${model}" is not loaded in any slot; load it with: svc slot load <slot> --model ${model}`,
      {
        param: 'model',
      },
    )
  }
  throw new SvcError('model.not_found', `model "${model}" does not exist`, { param: 'model' })
}

async function resolvePinned(
  model: string | undefined,
  slotName: string,
  deps: ResolveDeps,
): Promise<Target> {
  if (!deps.slots.has(slotName)) throw new SvcError('slot.not_found', `no slot named "${slotName}"`)
  const slot = deps.slots.get(slotName)
  if (!model || model === slotName) return { kind: 'slot', slot }
  if (slot.currentModel()?.id === model || (await deps.slots.routeRef(model)) === slot)
    return { kind: 'slot', slot, ref: model }
  if (await deps.isKnownModel(model)) {
    throw new SvcError(
      'model.not_loaded',
      `model "${model}" is not loaded in the ${slotName} slot; load it with: svc slot load ${slotName} --model ${model}`,
      {
        param: 'model',
      },
    )
  }
  throw new SvcError('model.not_found', `model "${model}" does not exist`, { param: 'model' })
}
