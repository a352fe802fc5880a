import {
  type Capability,
  type ModelEntry,
  modelCapabilities,
  type SlotSnapshot,
  type SlotState,
  SvcError,
} from '@svc/core'
import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/** svc's extension of a `/v1/models` entry: which slot answers for it and whether it is loaded. */
export interface SvcModelView {
  slot: string | null
  model: string | null
  state: SlotState | null
  loaded: boolean
}

/** States in which a request is answered at once (no pull, start or warm-up first). */
const LOADED: ReadonlySet<SlotState> = new Set(['ready', 'serving', 'idle'])

/**
 * `GET /v1/models` → `{object:"list", data:[{id, object:"model", created, owned_by}]}` in OpenAI's
 * shape: the slot aliases (`primary`, `embed`, `stt`, `tts`, custom slots) first, so a client that
 * picks the first model gets the primary chat slot, then the refs usable without a download (on
 * disk or in a slot) and hosted upstream refs.
 * `GET /v1/models/:id` → one of those objects, or 404 `model.not_found`.
 *
 * Each entry also carries `_svc: {slot, model, state, loaded}` so that a `v1-only` caller (the chat
 * app) can tell what answers without loading anything: `slot` is the slot the entry names or that
 * holds the ref (null for a ref in no slot and for hosted refs), `model` the ref it runs, `state` that
 * slot's state, `loaded` true when the slot is ready/serving/idle, and always for hosted refs.
 *
 * And `capabilities` (`["chat","vision"]`, see `modelCapabilities`): a slot alias has those of the
 * model it holds or is loading (an empty slot those of its role, without `vision`); a hosted ref and
 * a remote chat slot (and what it serves) have `null` (the upstream decides whether it sees images). Front ends offer image attachments by it.
 */
export function v1ModelsRoutes(deps: AppDeps) {
  const created = Math.floor(deps.startedAt / 1000)
  const list = async () => {
    // The image slot is reached through /v1/images/* and its model ids; it is no chat alias.
    const aliases = deps.slots.manager
      .names()
      .filter((name) => deps.slots.manager.config(name).provider !== 'image')
    // Models a request can use without a download: on disk or held by a slot (NPU tags, remote
    // upstreams). The whole catalogue is `GET /api/models` / `svc models ls`.
    const slots = deps.slots.manager.list()
    const bySlot = new Map(slots.map((slot) => [slot.name, slot]))
    const byModel = new Map(slots.filter((slot) => slot.model).map((slot) => [slot.model!, slot]))
    const slotCapabilities = (name: string): Capability[] | null => {
      const holds = deps.slots.manager.get(name).currentModel()
      const config = deps.slots.manager.config(name)
      const known = modelCapabilities(
        holds ?? { provider: config.provider, ...(config.role ? { role: config.role } : {}) },
      )
      // A remote chat upstream has its own files, a projector or not: whether it sees images is
      // unknown, so the whole answer is (null, like a hosted ref). Its other roles are the slot's.
      return config.runtime === 'remote' && known.includes('chat') ? null : known
    }
    /** A stored model's capabilities, unless a remote slot serves it (then that slot's). */
    const refCapabilities = (model: ModelEntry): Capability[] | null => {
      const holder = byModel.get(model.id)
      return holder?.runtime === 'remote' ? slotCapabilities(holder.name) : modelCapabilities(model)
    }
    const view = (slot: SlotSnapshot | undefined, model: string | null): SvcModelView => ({
      slot: slot?.name ?? null,
      model: slot?.model ?? model,
      state: slot?.state ?? null,
      loaded: slot !== undefined && LOADED.has(slot.state),
    })
    const refs = [
      ...(await deps.slots.store.list())
        .filter((m) => m.path !== undefined || byModel.has(m.id))
        .map((m) => ({
          id: m.id,
          owned_by: 'svc',
          capabilities: refCapabilities(m),
          _svc: view(byModel.get(m.id), m.id),
        })),
      // Models svc has no entry for: what a remote slot's upstream serves under its own name.
      ...[...byModel].map(([id, slot]) => ({
        id,
        owned_by: 'svc',
        capabilities: slotCapabilities(slot.name),
        _svc: view(slot, id),
      })),
      ...(deps.upstreamRefs?.() ?? []).map((r) => ({
        ...r,
        capabilities: null,
        _svc: { slot: null, model: r.id, state: null, loaded: true },
      })),
    ]
    const seen = new Set<string>()
    const data: {
      id: string
      object: 'model'
      created: number
      owned_by: string
      /** What the model accepts; null when svc cannot know (hosted upstream refs). */
      capabilities: Capability[] | null
      _svc: SvcModelView
    }[] = []
    const entries = [
      ...aliases.map((id) => ({
        id,
        owned_by: 'svc',
        capabilities: slotCapabilities(id),
        _svc: view(bySlot.get(id), null),
      })),
      ...refs,
    ]
    for (const entry of entries) {
      if (seen.has(entry.id)) continue
      seen.add(entry.id)
      data.push({
        id: entry.id,
        object: 'model',
        created,
        owned_by: entry.owned_by,
        capabilities: entry.capabilities,
        _svc: entry._svc,
      })
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
