import type { Principal } from '@svc/auth'
import { type Capability, type ModelEntry, type SlotSnapshot, type SlotState, SvcError } from '@svc/core'
import { type ModelFacts, modelFacts } from '@svc/providers/models'
import { Hono } from 'hono'
import type { AppDeps } from '../deps'
import { mayList } from '../middleware/token-models'
import { svcModelName } from '../ollama/names'
import { listedHere } from '../slots/runnable'
import { presetListings } from './preset-listing'

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
 * shape, listing only what can answer here (judged in `slots/runnable.ts`, as every face judges): the
 * slot aliases (`primary`, `embed`, `stt`, `tts`, custom slots) first, so a client that picks the
 * first model gets the primary chat slot, then the presets' aliases and variants (`presets.toml`),
 * the refs usable without a download (on disk or in a slot) and hosted upstream refs. A chat slot is
 * listed whenever this machine can run it (a request or the chat app's Load button loads it); any
 * other slot (`embed`, `stt`, `tts`, …) only while it holds a model, so chat clients do not offer
 * what cannot answer; an empty slot that cannot run here (`runnable.ok` false) never. A ref on disk is
 * listed only where it is offered (`GET /api/models`' `offered`: no NPU models without an NPU); a
 * ref a slot holds always.
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
 * Capabilities, `context_length` (the training context, tokens) and `architecture` come from
 * `modelFacts` (the GGUF header, the entry, the slot's kind), as every other listing's do; the last
 * two are there only when svc has read them from a file.
 *
 * `GET /v1/models/{id}` takes every form a client may hold: a slot name, a registry ref, Ollama's
 * `name:latest` (`primary:latest`), Hub names with `/` and `:` (`hf.co/o/r:Q4_K_M`).
 */
export function v1ModelsRoutes(deps: AppDeps) {
  const created = Math.floor(deps.startedAt / 1000)
  const list = async () => {
    const listing = await listedHere(deps.slots)
    const slots = deps.slots.manager.list()
    const bySlot = new Map(slots.map((slot) => [slot.name, slot]))
    // The image slot is reached through /v1/images/* and its model ids; it is no chat alias. Nor is
    // a spare slot (primary-2): the model it holds is listed by its own id.
    const { manager } = deps.slots
    const aliases = manager
      .names()
      .filter((name) => listing.slot(name) && manager.spareOf(name) === undefined)
    // Models a request can use without a download: on disk or held by a slot (NPU tags, remote
    // upstreams). The whole catalogue is `GET /api/models` / `svc models ls`.
    const byModel = new Map(slots.filter((slot) => slot.model).map((slot) => [slot.model!, slot]))
    const slotCapabilities = async (name: string): Promise<Described> => {
      const holds = deps.slots.manager.get(name).currentModel()
      const config = deps.slots.manager.config(name)
      const facts = await modelFacts(holds ?? undefined, { provider: config.provider, role: config.role })
      // A remote chat upstream has its own files, a projector or not: whether it sees images is
      // unknown, so the whole answer is (null, like a hosted ref). Its other roles are the slot's.
      return described(config.runtime === 'remote' && facts.capabilities.includes('chat') ? null : facts)
    }
    /** A stored model's capabilities, unless a remote slot serves it (then that slot's). */
    const refCapabilities = async (model: ModelEntry): Promise<Described> => {
      const holder = byModel.get(model.id)
      if (holder?.runtime === 'remote') return slotCapabilities(holder.name)
      const config = holder && manager.has(holder.name) ? manager.config(holder.name) : undefined
      return described(await modelFacts(model, config && { provider: config.provider, role: config.role }))
    }
    const view = (slot: SlotSnapshot | undefined, model: string | null): SvcModelView => ({
      slot: slot?.name ?? null,
      model: slot?.model ?? model,
      state: slot?.state ?? null,
      loaded: slot !== undefined && LOADED.has(slot.state),
    })
    const refs = [
      ...(await Promise.all(
        (
          await deps.slots.store.list()
        )
          .filter((m) => listing.ref(m))
          .map(async (m) => ({
            id: m.id,
            owned_by: 'svc',
            ...(await refCapabilities(m)),
            _svc: view(byModel.get(m.id), m.id),
          })),
      )),
      // Models svc has no entry for: what a remote slot's upstream serves under its own name.
      ...(await Promise.all(
        [...byModel].map(async ([id, slot]) => ({
          id,
          owned_by: 'svc',
          ...(await slotCapabilities(slot.name)),
          _svc: view(slot, id),
        })),
      )),
      ...(deps.upstreamRefs?.() ?? []).map((r) => ({
        ...r,
        ...described(null),
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
      context_length?: number
      architecture?: string
      _svc: SvcModelView
    }[] = []
    const entries = [
      ...(await Promise.all(
        aliases.map(async (id) => ({
          id,
          owned_by: 'svc',
          ...(await slotCapabilities(id)),
          _svc: view(bySlot.get(id), null),
        })),
      )),
      // Presets' aliases and variants (presets.toml), with the context their engine runs with.
      ...(await presetListings(deps.presets, deps.slots)).map((p) => ({
        id: p.id,
        owned_by: 'svc',
        ...described(p.facts),
        ...(p.contextLength ? { context_length: p.contextLength } : {}),
        _svc: view(p.slot, p.loadAs),
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
        ...(entry.context_length ? { context_length: entry.context_length } : {}),
        ...(entry.architecture ? { architecture: entry.architecture } : {}),
        _svc: entry._svc,
      })
    }
    return data
  }
  // A token limited to models sees those only (middleware/token-models.ts); everyone else, all.
  const visible = async (principal: Principal | undefined) =>
    (await list()).filter((m) => mayList(principal, m.id, deps.slots.manager))
  return new Hono()
    .get('/', async (c) => c.json({ object: 'list' as const, data: await visible(c.get('principal')) }))
    .get('/:id{.+}', async (c) => {
      const id = c.req.param('id')
      const all = await visible(c.get('principal'))
      // Ollama's `name:latest` is the untagged id (`primary:latest` is `primary`).
      const found = all.find((m) => m.id === id) ?? all.find((m) => m.id === svcModelName(id))
      if (!found) throw new SvcError('model.not_found', `model "${id}" does not exist`, { param: 'model' })
      return c.json(found)
    })
}

/** The listing fields a model's facts give; all null/absent when svc cannot know (a hosted ref). */
interface Described {
  capabilities: Capability[] | null
  context_length?: number
  architecture?: string
}

function described(facts: ModelFacts | null): Described {
  if (!facts) return { capabilities: null }
  return {
    capabilities: facts.capabilities,
    ...(facts.contextLength ? { context_length: facts.contextLength } : {}),
    ...(facts.architecture ? { architecture: facts.architecture } : {}),
  }
}
