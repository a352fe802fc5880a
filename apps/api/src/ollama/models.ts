/**
 * Ollama's model lists, built from svc's slots and model store: `/api/tags` lists what `/v1/models`
 * lists (`listedHere`, slots/runnable.ts: slots and refs that can answer here, hosted refs) as `<id>:latest`;
 * `/api/ps` the refs of loaded slots; `/api/show` one of them. Sizes are the files' sizes (0 when svc
 * has no file: remote slots, hosted refs). What a model is and can do (`details`, `model_info`,
 * `capabilities`) comes from `modelFacts` (@svc/providers/models), the one place every listing reads:
 * the GGUF header of the file on disk, the entry and the slot's kind. `ps`'s `expires_at` is when the
 * slot's idle unload (`unload_after`, or a client's `keep_alive`) would fire, far ahead when never.
 */
import { createHash } from 'node:crypto'
import { type ModelEntry, type SlotState, SvcError } from '@svc/core'
import { chatTemplate, type ModelFacts, modelFacts, type SlotKind } from '@svc/providers/models'
import { presetListings } from '../routes/preset-listing'
import type { PresetsState } from '../slots/presets-watch'
import { listedHere } from '../slots/runnable'
import type { SlotSystem } from '../slots/slot-system'
import { ollamaName, svcModelName } from './names'

export interface ModelListDeps {
  slots: SlotSystem
  upstreamRefs?: () => { id: string; owned_by: string }[]
  startedAt: number
  /** Presets (`presets.toml`): their aliases and variants are listed too. */
  presets?: PresetsState
}

const LOADED: ReadonlySet<SlotState> = new Set(['ready', 'serving', 'idle'])
const NEVER = '2318-01-01T00:00:00Z'

/** The Ollama API version svc answers: clients gate features on it (svc's own is in `/api/status`). */
export const OLLAMA_API_VERSION = '0.12.0'

interface Described {
  id: string
  entry?: ModelEntry
}

export async function tags(deps: ModelListDeps) {
  const { manager, store } = deps.slots
  const held = new Map(
    manager
      .list()
      .filter((s) => s.model)
      .map((s) => [s.model!, s]),
  )
  const byId = new Map((await store.list()).map((m) => [m.id, m]))
  const listing = await listedHere(deps.slots)
  const listed: Described[] = [
    ...manager
      .names()
      .filter((name) => listing.slot(name))
      .map((name) => ({ id: name, entry: slotModel(deps, name) })),
    ...(await presetListings(deps.presets, deps.slots)).map((p) => ({ id: p.id, entry: p.entry })),
    ...[...byId.values()].filter((m) => listing.ref(m)).map((m) => ({ id: m.id, entry: m })),
    ...[...held.keys()].map((id) => ({ id, entry: byId.get(id) })),
    ...(deps.upstreamRefs?.() ?? []).map((r) => ({ id: r.id })),
  ]
  const seen = new Set<string>()
  const models = await Promise.all(
    listed
      .filter((m) => !seen.has(m.id) && seen.add(m.id))
      .map(async (m) => ({ ...summary(deps, m), details: details(m.entry, await factsOf(deps, m)) })),
  )
  return { models }
}

export async function ps(deps: ModelListDeps) {
  const byId = new Map((await deps.slots.store.list()).map((m) => [m.id, m]))
  const { manager } = deps.slots
  const models = await Promise.all(
    manager
      .list()
      .filter((s) => s.model && LOADED.has(s.state))
      .map(async (s) => {
        const m = {
          id: s.model!,
          entry: manager.get(s.name).currentModel() ?? byId.get(s.model!) ?? undefined,
        }
        const facts = await modelFacts(m.entry, slotKind(deps, s.name))
        const size = m.entry?.size ?? 0
        // The idle unload in force: when nobody asks for it until then, the slot unloads.
        const after = manager.idlePolicy(s.name)
        const from = s.state === 'serving' ? Date.now() : s.since
        return {
          ...summary(deps, m),
          details: details(m.entry, facts),
          expires_at:
            after.unloadAfterMs > 0 && !after.pinned
              ? new Date(from + after.unloadAfterMs).toISOString()
              : NEVER,
          // On a GPU backend the weights are in its memory; on the CPU, none are.
          size_vram: s.backend && s.backend !== 'cpu' ? size : 0,
          context_length: facts.contextLength ?? 0,
        }
      }),
  )
  return { models }
}

export async function show(deps: ModelListDeps, name: string) {
  const { manager, store } = deps.slots
  // A preset's name (presets.toml) shows the model it runs: its engine's when loaded, else its file's.
  const asked = svcModelName(name)
  const target = deps.presets?.table.loadTarget(asked)
  const id = !target ? asked : manager.findByModel(target.id) ? target.id : target.model
  // A slot's own entry first: it carries the role the slot gave a file loaded by path.
  const entry = manager.has(id)
    ? slotModel(deps, id)
    : (manager.findByModel(id)?.currentModel() ?? (await store.get(id)))
  const hosted = deps.upstreamRefs?.().some((r) => r.id === id)
  if (!manager.has(id) && !entry && !hosted)
    throw new SvcError('model.not_found', `model "${name}" not found`)
  // A file loaded by path has no role of its own: the slot's kind (embed, rerank, tts) says what it does.
  const holder = manager.has(id) ? id : manager.findByModel(id)?.name
  const facts = await modelFacts(entry ?? undefined, holder ? slotKind(deps, holder) : undefined)
  const projector = entry?.mmproj?.path
    ? await modelFacts({
        id: `${id}.mmproj`,
        format: 'gguf',
        provider: 'llm',
        source: 'local',
        path: entry.mmproj.path,
      })
    : undefined
  return {
    license: entry?.license ?? '',
    modelfile: `# svc model ${id}\nFROM ${entry?.id ?? id}\n`,
    parameters: '',
    template: await chatTemplate(entry ?? undefined),
    system: '',
    messages: [],
    details: details(entry ?? undefined, facts),
    model_info: {
      ...facts.header,
      'general.architecture': facts.architecture ?? entry?.family ?? '',
      'general.basename': entry?.id ?? id,
    },
    ...(projector?.header ? { projector_info: projector.header } : {}),
    capabilities: ollamaCapabilities(facts),
    modified_at: new Date(deps.startedAt).toISOString(),
  }
}

/**
 * svc's facts in Ollama's capability words (completion, tools, insert, vision, embedding, thinking):
 * `tools` and `thinking` when the chat template takes them, or when no template can be read (a remote
 * or hosted upstream: its own template decides). `insert` never: svc refuses `suffix`. Speech,
 * transcription, rerank and image models have no Ollama word, so they list none.
 */
export function ollamaCapabilities(facts: ModelFacts): string[] {
  const out: string[] = []
  const chat = facts.capabilities.includes('chat')
  if (chat) out.push('completion')
  if (chat && (facts.tools || facts.header === null)) out.push('tools')
  if (facts.capabilities.includes('vision')) out.push('vision')
  if (facts.capabilities.includes('embeddings')) out.push('embedding')
  if (chat && facts.thinking) out.push('thinking')
  return out
}

/** The kind of slot `name` (its provider and role), for a model in it that has no role of its own. */
function slotKind(deps: ModelListDeps, name: string): SlotKind {
  const config = deps.slots.manager.config(name)
  return { provider: config.provider, role: config.role }
}

/** The facts of a listed model, with the kind of the slot it names or sits in. */
function factsOf(deps: ModelListDeps, m: Described): Promise<ModelFacts> {
  const { manager } = deps.slots
  const holder = manager.has(m.id) ? m.id : manager.findByModel(m.id)?.name
  return modelFacts(m.entry, holder ? slotKind(deps, holder) : undefined)
}

function slotModel(deps: ModelListDeps, slot: string): ModelEntry | undefined {
  return deps.slots.manager.get(slot).currentModel() ?? undefined
}

function summary(deps: ModelListDeps, m: Described) {
  const name = ollamaName(m.id)
  return {
    name,
    model: name,
    modified_at: new Date(deps.startedAt).toISOString(),
    size: m.entry?.size ?? 0,
    digest:
      m.entry?.sha256 ??
      createHash('sha256')
        .update(m.entry?.id ?? m.id)
        .digest('hex'),
  }
}

function details(entry: ModelEntry | undefined, facts: ModelFacts) {
  const quant = /[-_.:](i?q\d[\w]*|f16|bf16|f32)$/i.exec(entry?.id ?? '')?.[1]
  const family = facts.architecture ?? entry?.family ?? ''
  return {
    parent_model: '',
    format: entry?.format ?? '',
    family,
    families: family ? [family] : null,
    parameter_size: facts.parameterSize ?? '',
    quantization_level: facts.quantization ?? quant?.toUpperCase() ?? '',
  }
}
