/**
 * Ollama's model lists, built from svc's slots and model store: `/api/tags` lists what `/v1/models`
 * lists (the slots but the image slot, refs on disk or in a slot, hosted refs) as `<id>:latest`;
 * `/api/ps` the refs of loaded slots; `/api/show` one of them. Sizes are the files' sizes (0 when svc
 * has no file: remote slots, hosted refs); svc keeps a slot loaded until it is unloaded, so `ps`'s
 * `expires_at` lies far ahead.
 */
import { createHash } from 'node:crypto'
import { type ModelEntry, modelCapabilities, type SlotState, SvcError } from '@svc/core'
import type { SlotSystem } from '../slots/slot-system'
import { ollamaName, svcModelName } from './names'

export interface ModelListDeps {
  slots: SlotSystem
  upstreamRefs?: () => { id: string; owned_by: string }[]
  startedAt: number
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
  const listed: Described[] = [
    ...manager
      .names()
      .filter((name) => manager.config(name).provider !== 'image')
      .map((name) => ({ id: name, entry: slotModel(deps, name) })),
    ...[...byId.values()]
      .filter((m) => m.path !== undefined || held.has(m.id))
      .map((m) => ({ id: m.id, entry: m })),
    ...[...held.keys()].map((id) => ({ id, entry: byId.get(id) })),
    ...(deps.upstreamRefs?.() ?? []).map((r) => ({ id: r.id })),
  ]
  const seen = new Set<string>()
  const models = listed
    .filter((m) => !seen.has(m.id) && seen.add(m.id))
    .map((m) => ({ ...summary(deps, m), details: details(m.entry) }))
  return { models }
}

export async function ps(deps: ModelListDeps) {
  const byId = new Map((await deps.slots.store.list()).map((m) => [m.id, m]))
  const models = deps.slots.manager
    .list()
    .filter((s) => s.model && LOADED.has(s.state))
    .map((s) => {
      const m = {
        id: s.model!,
        entry: byId.get(s.model!) ?? deps.slots.manager.get(s.name).currentModel() ?? undefined,
      }
      return { ...summary(deps, m), details: details(m.entry), expires_at: NEVER, size_vram: 0 }
    })
  return { models }
}

export async function show(deps: ModelListDeps, name: string) {
  const id = svcModelName(name)
  const { manager, store } = deps.slots
  // A slot's own entry first: it carries the role the slot gave a file loaded by path.
  const entry = manager.has(id)
    ? slotModel(deps, id)
    : (manager.findByModel(id)?.currentModel() ?? (await store.get(id)))
  const hosted = deps.upstreamRefs?.().some((r) => r.id === id)
  if (!manager.has(id) && !entry && !hosted)
    throw new SvcError('model.not_found', `model "${name}" not found`)
  // A file loaded by path has no role of its own: the slot's role (embed, rerank) says what it does.
  const holder = manager.has(id) ? id : manager.findByModel(id)?.name
  const role = entry?.role ?? (holder ? manager.config(holder).role : undefined)
  const capabilities = entry ? modelCapabilities({ ...entry, ...(role ? { role } : {}) }) : ['chat']
  return {
    license: entry?.license ?? '',
    modelfile: `# svc model ${id}\nFROM ${entry?.id ?? id}\n`,
    parameters: '',
    template: '',
    details: details(entry),
    model_info: { 'general.architecture': entry?.family ?? '', 'general.basename': entry?.id ?? id },
    capabilities: ollamaCapabilities(capabilities),
    modified_at: new Date(deps.startedAt).toISOString(),
  }
}

/** svc's capabilities in Ollama's words; a chat model may be given tools (the engine's template decides). */
function ollamaCapabilities(capabilities: readonly string[]): string[] {
  const out: string[] = []
  if (capabilities.includes('chat')) out.push('completion', 'tools')
  if (capabilities.includes('vision')) out.push('vision')
  if (capabilities.includes('embeddings')) out.push('embedding')
  return out
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

function details(entry: ModelEntry | undefined) {
  const quant = /[-_.](i?q\d[\w]*|f16|bf16|f32)$/i.exec(entry?.id ?? '')?.[1]
  return {
    parent_model: '',
    format: entry?.format ?? '',
    family: entry?.family ?? '',
    families: entry?.family ? [entry.family] : null,
    parameter_size: '',
    quantization_level: quant?.toUpperCase() ?? '',
  }
}
