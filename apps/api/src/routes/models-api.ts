import { type ModelEntry, SvcError } from '@svc/core'
import { modelFacts } from '@svc/providers/models'
import { Hono } from 'hono'
import type { ModelPulls } from '../slots/model-pulls'
import { offer, offerContext } from '../slots/runnable'
import type { SlotSystem } from '../slots/slot-system'
import { isAdmin } from '../views/redact'

/**
 * Models, mounted at `/api/models`.
 *
 * - `GET /` → `{models:[{id, provider, format, role, source, present, needs_pull, size, path, url,
 *   slot, capabilities, context_length, architecture, mmproj, offered, reason, pulling, …}]}`: every
 *   curated, pulled and local model (capabilities, context and architecture from `modelFacts`, as in
 *   every listing; the last two null until svc has read the file's header),
 *   whether its files are on disk (a vision model's projector too), the slot holding it, what it
 *   accepts, whether svc offers it on this machine (and why not), and the progress of a pull started
 *   here (`pulling: {done, total} | null`). `size` is all its files in bytes (a vision model's projector
 *   included; `mmproj.size` is the projector's share). `path` and `url` (where the file lies, where it is
 *   downloaded from) are admin-only: `null` for every other scope.
 * - `POST /:id/pull` → 202 `{model, status:"pulling", done, total}`: downloads without loading;
 *   progress and outcome are `model.pull` events. 200 `{status:"done"}` when already on disk; 409
 *   `model.in_use` while a slot is loading it.
 * - `DELETE /:id/pull` → `{model, cancelled}`; the partial file stays, a later pull resumes it.
 * - `DELETE /:id` → `{id, deleted}`: removes the downloaded file (a ref pulled from a URL is
 *   forgotten too). 409 `model.in_use` while a slot holds it or it is being pulled; 400 for a local
 *   file (not svc's to delete); 404 `model.not_found` for an unknown id.
 * - `POST /:id/forget` → `{id, forgotten: true, deleted}`: the ref is gone from every list. A local
 *   file's ref goes and the file stays (whether it is still there or not); a pulled ref goes with its
 *   download (`deleted` says whether a file was removed). 409 `model.in_use` as for `DELETE`; 400 for
 *   a curated id (its catalogue entry stays; `DELETE` removes its download).
 */
export function modelsApiRoutes(deps: { slots: SlotSystem; pulls?: ModelPulls }) {
  const known = async (id: string): Promise<ModelEntry> => {
    const entry = await deps.slots.store.get(id)
    if (!entry) throw new SvcError('model.not_found', `no model "${id}"`, { param: 'id' })
    return entry
  }
  const holder = (id: string) => deps.slots.manager.findByModel(id)?.name
  /** 409 `model.in_use` while a slot holds the model or a pull is writing it (DELETE and forget). */
  const refuseInUse = (id: string): void => {
    const slot = holder(id)
    if (slot)
      throw new SvcError('model.in_use', `slot "${slot}" holds "${id}": unload it first`, { param: 'id' })
    if (deps.pulls?.get(id))
      throw new SvcError('model.in_use', `"${id}" is being pulled: cancel the pull first`, { param: 'id' })
  }
  return new Hono()
    .get('/', async (c) => {
      const admin = isAdmin(c.get('principal'))
      const models = await deps.slots.store.list()
      const ctx = await offerContext(deps.slots)
      const facts = await Promise.all(
        models.map((m) => {
          const slot = holder(m.id)
          const config = slot ? deps.slots.manager.config(slot) : undefined
          return modelFacts(m, config && { provider: config.provider, role: config.role })
        }),
      )
      return c.json({
        models: models.map((m, i) => {
          const pull = deps.pulls?.get(m.id)
          const known = facts[i]!
          return {
            id: m.id,
            provider: m.provider,
            format: m.format,
            role: m.role ?? null,
            source: m.source,
            // Every file on disk: the model and, for a vision model, its projector.
            present: complete(m),
            // Nothing to download: on disk, or served without a file (espeak-ng, NPU tags, baked into an image).
            needs_pull: missingDownload(m),
            // All of the model's files (a vision model's projector too): the one figure every face prints.
            size: totalSize(m),
            path: admin ? (m.path ?? null) : null,
            url: admin ? (m.url ?? null) : null,
            family: m.family ?? null,
            min_vram_gb: m.minVramGb ?? null,
            license: m.license ?? null,
            license_url: m.licenseUrl ?? null,
            badge: m.badge ?? null,
            description: m.description ?? null,
            slot: holder(m.id) ?? null,
            capabilities: known.capabilities,
            context_length: known.contextLength,
            architecture: known.architecture,
            // The vision projector, a second file (its path and url follow the model's own redaction).
            mmproj: m.mmproj
              ? {
                  present: m.mmproj.path !== undefined,
                  size: m.mmproj.size ?? null,
                  path: admin ? (m.mmproj.path ?? null) : null,
                  url: admin ? (m.mmproj.url ?? null) : null,
                }
              : null,
            pulling: pull ? { done: pull.done, total: pull.total } : null,
            ...offer(m, ctx),
          }
        }),
      })
    })
    .post('/:id/pull', async (c) => {
      const entry = await known(c.req.param('id'))
      if (complete(entry))
        return c.json(
          { model: entry.id, status: 'done' as const, done: entry.size ?? 0, total: entry.size ?? null },
          200,
        )
      if (!missingDownload(entry))
        throw new SvcError(
          'request.invalid',
          `"${entry.id}" has nothing to download (it is served without a file)`,
          {
            param: 'id',
          },
        )
      const slot = holder(entry.id)
      if (slot)
        throw new SvcError('model.in_use', `slot "${slot}" is loading "${entry.id}"; its pull is under way`)
      if (!deps.pulls) throw new SvcError('route.not_found', 'pulls are not available here')
      const started = deps.pulls.start(entry)
      return c.json(
        { model: started.model, status: started.status, done: started.done, total: started.total },
        202,
      )
    })
    .delete('/:id/pull', async (c) => {
      const id = c.req.param('id')
      // A Hub model is registered once its pull completes: a running pull is cancelled by its id alone.
      if (deps.pulls?.get(id)) return c.json({ model: id, cancelled: deps.pulls.cancel(id) })
      const entry = await known(id)
      return c.json({ model: entry.id, cancelled: deps.pulls?.cancel(entry.id) ?? false })
    })
    .delete('/:id', async (c) => {
      const entry = await known(c.req.param('id'))
      refuseInUse(entry.id)
      const { deleted } = await deps.slots.store.remove(entry)
      return c.json({ id: entry.id, deleted: deleted !== null })
    })
    .post('/:id/forget', async (c) => {
      const entry = await known(c.req.param('id'))
      if (entry.source === 'catalogue')
        throw new SvcError(
          'request.invalid',
          `"${entry.id}" is a curated model: it cannot be forgotten (DELETE /api/models/${entry.id} deletes its download)`,
          { param: 'id' },
        )
      refuseInUse(entry.id)
      // A local file is the user's: only the ref goes. A pulled ref takes its download with it.
      if (entry.source === 'local') await deps.slots.store.unregister(entry.id)
      const deleted = entry.source === 'local' ? null : (await deps.slots.store.remove(entry)).deleted
      return c.json({ id: entry.id, forgotten: true as const, deleted: deleted !== null })
    })
}

/** Whether every file of the model is on disk: its own and, for a vision model, the projector. */
function complete(m: ModelEntry): boolean {
  return m.path !== undefined && (!m.mmproj || m.mmproj.path !== undefined)
}

/** Whether a file of the model is missing and has a URL to pull it from. */
function missingDownload(m: ModelEntry): boolean {
  return (
    (m.path === undefined && m.url !== undefined) ||
    (m.mmproj !== undefined && m.mmproj.path === undefined && m.mmproj.url !== undefined)
  )
}

/** Bytes of all the model's files: the model and, for a vision model, its projector; null when unknown. */
function totalSize(m: ModelEntry): number | null {
  if (m.size === undefined) return null
  return m.size + (m.mmproj?.size ?? 0)
}
