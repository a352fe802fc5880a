import type { SvcApi } from './svc-api'

/** A model the chat picker offers, as the browser sees it. */
export interface ChatModel {
  id: string
  /** The slot that answers for it, or null (a hosted ref, or a ref in no slot). */
  slot: string | null
  /** The model the slot holds (for an alias), else the id itself. */
  model: string | null
  state: string | null
  /** A request is answered without loading anything first. */
  loaded: boolean
  /** What it can do (`chat`, `vision`, `speech`, `transcriptions`, …); null: unknown (hosted). */
  capabilities: string[] | null
}

export interface ModelList {
  models: ChatModel[]
  /** The models to offer for chatting (chat-capable or unknown), in the API's order. */
  chat: string[]
  /** The model read-aloud uses (`tts`) and the one voice input uses (`stt`), when listed. */
  speech: ChatModel | null
  transcription: ChatModel | null
}

interface V1Model {
  id: string
  capabilities?: string[] | null
  _svc?: { slot: string | null; model: string | null; state: string | null; loaded: boolean }
}

/** Slot names whose role is not chat, for entries that carry no `capabilities` (an older API). */
const ROLE_OF_SLOT: Record<string, string> = { embed: 'embeddings', stt: 'transcriptions', tts: 'speech' }

/**
 * `GET /v1/models` through the chat app's token, shaped for the picker. `capabilities` comes from the
 * API when it says (each model's `capabilities`); otherwise it is inferred from the slot's role, which is exact
 * for the built-in slots and says "chat" for every other slot. `_svc` (loaded state) comes from the
 * API; an API without it reports every model as loaded, so Send is never wrongly disabled.
 */
export async function listModels(api: SvcApi, signal?: AbortSignal): Promise<ModelList> {
  const res = await api.ok('/v1/models', signal ? { signal } : {})
  const body = (await res.json()) as { data?: V1Model[] }
  const models = (body.data ?? []).map(toChatModel)
  const chat = models.filter((m) => m.capabilities === null || m.capabilities.includes('chat'))
  const byCapability = (cap: string, slot: string) =>
    models.find((m) => m.id === slot && m.capabilities?.includes(cap)) ??
    models.find((m) => m.capabilities?.includes(cap)) ??
    null
  return {
    models,
    chat: chat.map((m) => m.id),
    speech: byCapability('speech', 'tts'),
    transcription: byCapability('transcriptions', 'stt'),
  }
}

function toChatModel(entry: V1Model): ChatModel {
  const svc = entry._svc
  const slot = svc?.slot ?? null
  let capabilities: string[] | null
  if (entry.capabilities !== undefined) capabilities = entry.capabilities
  else if (svc && !svc.slot && svc.loaded)
    capabilities = null // a hosted ref: svc cannot tell
  else capabilities = [ROLE_OF_SLOT[slot ?? entry.id] ?? 'chat']
  return {
    id: entry.id,
    slot,
    model: svc?.model ?? entry.id,
    state: svc?.state ?? null,
    loaded: svc ? svc.loaded : true,
    capabilities,
  }
}
