import { Hono } from 'hono'
import type { SlotSystem } from '../slots/slot-system'

/**
 * `GET /api/models` → `{models:[{id, provider, format, role, source, present, size, path, slot, …}]}`:
 * every curated, pulled and local model, whether its file is on disk, and the slot holding it.
 */
export function modelsApiRoutes(deps: { slots: SlotSystem }) {
  return new Hono().get('/', async (c) => {
    const models = await deps.slots.store.list()
    return c.json({
      models: models.map((m) => ({
        id: m.id,
        provider: m.provider,
        format: m.format,
        role: m.role ?? null,
        source: m.source,
        present: m.path !== undefined,
        size: m.size ?? null,
        path: m.path ?? null,
        url: m.url ?? null,
        family: m.family ?? null,
        min_vram_gb: m.minVramGb ?? null,
        license: m.license ?? null,
        license_url: m.licenseUrl ?? null,
        badge: m.badge ?? null,
        description: m.description ?? null,
        slot: deps.slots.manager.findByModel(m.id)?.name ?? null,
      })),
    })
  })
}
