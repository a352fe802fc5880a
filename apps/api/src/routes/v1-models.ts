import { type Capability, modelCapabilities, SvcError } from '@svc/core'
import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/**
 * `GET /v1/models` → `{object:"list", data:[{id, object:"model", created, owned_by}]}` in OpenAI's
 * shape: the slot aliases (`primary`, `embed`, `stt`, `tts`, custom slots) first, so a client that
 * picks the first model gets the primary chat slot, then the refs usable without a download (on
 * disk or in a slot) and hosted upstream refs.
 * `GET /v1/models/:id` → one of those objects, or 404 `model.not_found`.
 *
 * svc adds `capabilities` to each (`["chat","vision"]`, see `modelCapabilities`): a slot alias has
 * those of the model it holds or is loading (an empty slot those of its role, without `vision`); a
 * hosted ref has `null` (the hosted service decides). Front ends offer image attachments by it.
 */
export interface V1Model {
  id: string
  object: 'model'
  created: number
  owned_by: string
  /** What the model accepts; null when svc cannot know (hosted upstream refs). */
  capabilities: Capability[] | null
}

export function v1ModelsRoutes(deps: AppDeps) {
  const created = Math.floor(deps.startedAt / 1000)
  const list = async () => {
    // The image slot is reached through /v1/images/* and its model ids; it is no chat alias.
    const aliases = deps.slots.manager
      .names()
      .filter((name) => deps.slots.manager.config(name).provider !== 'image')
    // Models a request can use without a download: on disk or held by a slot (NPU tags, remote
    // upstreams). The whole catalogue is `GET /api/models` / `svc models ls`.
    const held = new Set(deps.slots.manager.list().map((slot) => slot.model))
    const slotCapabilities = (name: string): Capability[] => {
      const holds = deps.slots.manager.get(name).currentModel()
      const config = deps.slots.manager.config(name)
      return modelCapabilities(
        holds ?? { provider: config.provider, ...(config.role ? { role: config.role } : {}) },
      )
    }
    const refs = [
      ...(await deps.slots.store.list())
        .filter((m) => m.path !== undefined || held.has(m.id))
        .map((m) => ({ id: m.id, owned_by: 'svc', capabilities: modelCapabilities(m) })),
      ...(deps.upstreamRefs?.() ?? []).map((r) => ({ ...r, capabilities: null })),
    ]
    const seen = new Set<string>()
    const data: V1Model[] = []
    const all = [
      ...aliases.map((id) => ({ id, owned_by: 'svc', capabilities: slotCapabilities(id) })),
      ...refs,
    ]
    for (const entry of all) {
      if (seen.has(entry.id)) continue
      seen.add(entry.id)
      data.push({ object: 'model', created, ...entry })
    }
    return data
  }
  return new Hono()
    .get('/', async (c) => c.json({ object: 'list' as const, data: await list() }))
    .get('/:id{.+}', async (c) => {
      const id = c.req.param('id')
      const found = (await list()).find((m) => m.id === id)
      if (!found) throw new SvcError('model.not_found', `model "${id}" does not exist`, { param: 'model' })
      return c.json(found)
    })
}
