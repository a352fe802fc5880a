/**
 * Presets in the model lists (`/v1/models`, Ollama's `/api/tags`): every alias and variant of
 * `presets.toml` (not `*`, and not a ref's own preset, which lists as the ref), with what the model
 * it runs can do (`modelFacts`, as every listing reads it) and the context its engine runs with (the
 * preset's `ctx_size`, else `*`'s, else the model's own training context).
 */
import type { ModelEntry, SlotSnapshot } from '@svc/core'
import { type ModelFacts, modelFacts } from '@svc/providers/models'
import type { PresetsState } from '../slots/presets-watch'
import type { SlotSystem } from '../slots/slot-system'

export interface PresetListing {
  /** The preset's name: what a client sends as `model`. */
  id: string
  /** The name its engine is loaded under (a ref, or the preset's base). */
  loadAs: string
  /** The model it runs, as svc knows it (undefined: a Hub name or URL not pulled yet). */
  entry: ModelEntry | undefined
  /** The slot that holds its engine now, if one does. */
  slot: SlotSnapshot | undefined
  facts: ModelFacts
  /** Tokens; null when neither a preset nor the file says. */
  contextLength: number | null
}

export async function presetListings(
  presets: PresetsState | undefined,
  slots: SlotSystem,
): Promise<PresetListing[]> {
  const table = presets?.table
  if (!table || table.empty) return []
  const views = table.list().filter((p) => p.name !== '*' && p.name !== p.model)
  return Promise.all(
    views.map(async (p): Promise<PresetListing> => {
      const holder = slots.manager.findByModel(p.load_as)
      const config = holder ? slots.manager.config(holder.name) : undefined
      const entry = holder?.currentModel() ?? (await slots.store.get(p.model))
      const facts = await modelFacts(
        entry ?? undefined,
        config && { provider: config.provider, role: config.role },
      )
      return {
        id: p.name,
        loadAs: p.load_as,
        entry: entry ?? undefined,
        slot: holder?.snapshot(),
        facts,
        contextLength: table.contextSize(p.name) ?? facts.contextLength,
      }
    }),
  )
}
