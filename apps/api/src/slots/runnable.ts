/**
 * The API's side of "what can run here" (issue 39): what requests a slot answers (`serves`), which
 * slots and refs `/v1/models` and `/api/tags` list (`listedHere`), and the context the verdicts are
 * judged in (`offerContext`: the picker's cached report and the configured slots). The verdicts
 * themselves (`offer`, `slotRunnable`) live with the picker in `@svc/providers`, where `svc doctor`
 * reads them too; `GET /api/slots`, `GET /api/models` and `GET /v1/models` serve them to the
 * dashboard, the chat app and the CLI, none of which works it out on its own.
 */
import type { Endpoint, ModelEntry, SlotConfig } from '@svc/core'
import { type OfferContext, offer, slotRunnable } from '@svc/providers'
import type { SlotSystem } from './slot-system'

export {
  type BackendRunnable,
  type Offer,
  type OfferContext,
  offer,
  type SlotRunnable,
  slotRunnable,
} from '@svc/providers'

/** The request kinds a slot answers (`serves` in `GET /api/slots`). */
export type Serves = string[]

/** Endpoint → the request kind people know it by; token counts and the like are no kind of their own. */
const KIND_OF: Partial<Record<Endpoint, string>> = {
  chat: 'chat',
  completions: 'chat',
  responses: 'chat',
  messages: 'chat',
  embeddings: 'embeddings',
  rerank: 'rerank',
  transcriptions: 'transcription',
  translations: 'transcription',
  speech: 'speech',
  images: 'images',
}

const ROLE_SERVES: Readonly<Record<string, string>> = { chat: 'chat', embed: 'embeddings', rerank: 'rerank' }

/**
 * What requests a slot answers: an llm or npu slot by its role (`chat` → `["chat"]`, `embed` →
 * `["embeddings"]`, `rerank` → `["rerank"]`; an npu slot without one chats), any other kind by the
 * endpoints its provider declares (stt → `["transcription"]`, tts → `["speech"]`, image → `["images"]`).
 */
export function servesOf(config: SlotConfig, endpoints: readonly Endpoint[] | undefined): Serves {
  if (config.provider === 'llm' || config.provider === 'npu')
    return [ROLE_SERVES[config.role ?? 'chat'] ?? config.role ?? 'chat']
  const kinds = new Set<string>()
  for (const e of endpoints ?? []) {
    const kind = KIND_OF[e]
    if (kind) kinds.add(kind)
  }
  return [...kinds]
}

/** What a model list offers here: which slot aliases and which refs (see {@link listedHere}). */
export interface Listing {
  /** Whether slot `name` is listed: one that holds a model; else, if it can run here, one that chats. */
  slot(name: string): boolean
  /** Whether a stored model is listed: one a slot holds, or one on disk that is offered here. */
  ref(model: ModelEntry): boolean
}

/**
 * What `GET /v1/models` and Ollama's `/api/tags` list, decided here for both: a slot that holds a
 * model (it answers); an empty chat slot this machine can run (a request or a Load button loads it);
 * no empty `embed`/`stt`/`tts`/… slot (chat clients would offer it) and never the image slot (it is
 * reached through `/v1/images/*`); a ref a slot holds, or one on disk that is `offered`.
 */
export async function listedHere(slots: SlotSystem): Promise<Listing> {
  const ctx = await offerContext(slots)
  const snapshots = slots.manager.list()
  const holding = new Set(snapshots.filter((s) => s.model).map((s) => s.name))
  const held = new Set(snapshots.filter((s) => s.model).map((s) => s.model!))
  return {
    slot(name) {
      const config = slots.manager.config(name)
      if (config.provider === 'image') return false
      if (holding.has(name)) return true // it runs: it answers, whatever the verdict says now
      if (!slotRunnable(config, ctx).ok) return false
      return servesOf(config, slots.providers.get(config.provider)?.endpoints).includes('chat')
    },
    ref: (model) => held.has(model.id) || (model.path !== undefined && offer(model, ctx).offered),
  }
}

/** The context `offer` and `slotRunnable` judge by: the picker's (cached) report and the configured slots. */
export async function offerContext(slots: SlotSystem): Promise<OfferContext> {
  const report = await slots.picker?.report().catch(() => undefined)
  const remote = new Set<string>()
  const slotProviders = new Set<string>()
  for (const name of slots.manager.names()) {
    const config = slots.manager.config(name)
    slotProviders.add(config.provider)
    if (config.runtime === 'remote') remote.add(config.provider)
  }
  return {
    ...(report ? { facts: report.hardware, providers: report.providers } : {}),
    installed: new Set(slots.providers.keys()),
    remote,
    slotProviders,
  }
}
