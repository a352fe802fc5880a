/**
 * Presets in the slots' model resolution (docs/models.md, "Presets"): a load of a preset's name —
 * from the CLI, the load API, a slot's default or a request that loads on request — runs the model
 * the preset names, under the preset's load name, with its engine settings on the entry
 * (`ModelEntry.engine`, part of the load key). A load of any other llm model gets `*`'s engine
 * settings. Without presets each wrapper is the function it wraps.
 *
 * Remote slots run what their remote has: engine settings do not apply there.
 */
import type { LoadOptions, ModelEntry, SlotConfig } from '@svc/core'
import type { PresetTable } from '@svc/providers/models'

type ResolveModel = (id: string, config: SlotConfig, options?: LoadOptions) => Promise<ModelEntry>
type DescribeModel = (ref: string) => Promise<ModelEntry | undefined>

/** `resolve` with presets: the preset's model resolved, named and set up as the preset says. */
export function resolveWithPresets(resolve: ResolveModel, presets: () => PresetTable): ResolveModel {
  return async (id, config, options) => {
    const table = presets()
    if (table.empty) return resolve(id, config, options)
    const target = table.loadTarget(id)
    const entry = await resolve(target?.model ?? id, config, options)
    if (config.runtime === 'remote') return entry
    const { args, ctxSize } = table.engine(id, entry.provider)
    const name = target?.id ?? entry.id
    if (name === entry.id && args.length === 0 && ctxSize === undefined) return entry
    return {
      ...entry,
      id: name,
      engine: { ref: entry.id, args, ...(ctxSize !== undefined ? { ctxSize } : {}) },
    }
  }
}

/**
 * `describe` with presets (which slot loads a name on request): a preset's name is described as the
 * model it runs, under its load name.
 */
export function describeWithPresets(describe: DescribeModel, presets: () => PresetTable): DescribeModel {
  return async (ref) => {
    const target = presets().loadTarget(ref)
    if (!target) return describe(ref)
    const entry = await describe(target.model)
    return entry && { ...entry, id: target.id }
  }
}
