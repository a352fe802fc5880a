import type { ModelEntry } from '@svc/core'
import { type HardwareFacts, memoryShortfall } from '@svc/providers'
import { Hono } from 'hono'
import type { SlotSystem } from '../slots/slot-system'
import { isAdmin } from '../views/redact'

/**
 * Whether svc offers a model on this machine, and why not: an image model needs a workflow
 * template; any model needs the memory its catalogue entry names (`min_vram_gb`).
 */
export function offer(
  model: ModelEntry,
  facts: HardwareFacts | undefined,
): { offered: boolean; reason: string | null } {
  if (model.provider === 'image' && !model.workflow)
    return { offered: false, reason: 'no workflow template for it yet' }
  const short = facts ? memoryShortfall(model, facts) : undefined
  return short ? { offered: false, reason: short } : { offered: true, reason: null }
}

/**
 * `GET /api/models` → `{models:[{id, provider, format, role, source, present, size, path, slot,
 * offered, reason, …}]}`: every curated, pulled and local model, whether its file is on disk, the slot
 * holding it, and whether svc offers it on this machine (and why not). `path` and `url` (where the
 * file lies, where it is downloaded from) are admin-only: `null` for every other scope.
 */
export function modelsApiRoutes(deps: { slots: SlotSystem }) {
  return new Hono().get('/', async (c) => {
    const admin = isAdmin(c.get('principal'))
    const models = await deps.slots.store.list()
    const facts = await deps.slots.picker
      ?.report()
      .then((r) => r.hardware)
      .catch(() => undefined)
    return c.json({
      models: models.map((m) => ({
        id: m.id,
        provider: m.provider,
        format: m.format,
        role: m.role ?? null,
        source: m.source,
        present: m.path !== undefined,
        // Nothing to download: on disk, or served without a file (espeak-ng, NPU tags, baked into an image).
        needs_pull: m.path === undefined && m.url !== undefined,
        size: m.size ?? null,
        path: admin ? (m.path ?? null) : null,
        url: admin ? (m.url ?? null) : null,
        family: m.family ?? null,
        min_vram_gb: m.minVramGb ?? null,
        license: m.license ?? null,
        license_url: m.licenseUrl ?? null,
        badge: m.badge ?? null,
        description: m.description ?? null,
        slot: deps.slots.manager.findByModel(m.id)?.name ?? null,
        ...offer(m, facts),
      })),
    })
  })
}
