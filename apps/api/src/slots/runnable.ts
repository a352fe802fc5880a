/**
 * What can run here, in one place (issue 39): whether this machine can run a slot (`runnable`), what
 * requests a slot answers (`serves`) and whether a model is offered at all (`offer`). `GET /api/slots`,
 * `GET /api/models`, `GET /v1/models`, the dashboard, the chat app and the CLI all read these verdicts;
 * none of them works it out on its own. Every verdict comes from the picker's report (`@svc/providers`,
 * the same one `GET /api/hardware` shows and every load is checked against).
 */
import type { Endpoint, ModelEntry, SlotConfig } from '@svc/core'
import { type HardwareFacts, memoryShortfall, type ProviderBackends } from '@svc/providers'
import type { SlotSystem } from './slot-system'

/** What decides whether this machine can run a model or slot (all optional: unknown = not second-guessed). */
export interface OfferContext {
  facts?: HardwareFacts
  /** The picker's verdicts per provider kind (kinds it does not decide for are absent). */
  providers?: Record<string, ProviderBackends>
  /** Provider kinds this server has (built-in and third-party). */
  installed?: ReadonlySet<string>
  /** Provider kinds a slot runs with `runtime = "remote"`: nothing local is needed for those. */
  remote?: ReadonlySet<string>
  /** Provider kinds some configured slot runs: a model no slot could load is not offered. */
  slotProviders?: ReadonlySet<string>
}

export interface Offer {
  offered: boolean
  /** Why not, for people (the dashboard shows it in place of the row's actions). */
  reason: string | null
}

/** One backend as a load picker shows it: it offers only those with `ok`. */
export interface BackendRunnable {
  backend: string
  ok: boolean
  /** Why not, for people; null when ok. */
  reason: string | null
}

/** Whether a slot can run on this machine (`runnable` in `GET /api/slots`). */
export interface SlotRunnable {
  /** The slot, as its file configures it (backend and runtime), can load here; a remote slot always. */
  ok: boolean
  /** Why not, for people ("cannot use rocm here: no /dev/kfd …"); null when ok. */
  reason: string | null
  /** Every backend the slot's provider declares, with the picker's verdict; empty when the picker does not decide for the kind. */
  backends: BackendRunnable[]
}

/**
 * Whether svc offers a model on this machine, and why not: its provider must be installed and have
 * a backend that runs here (or a remote slot that serves it), some slot must run that provider (else
 * nothing could load it), an image model needs a workflow template, and any model needs the memory
 * its catalogue entry names (`min_vram_gb`).
 */
export function offer(model: ModelEntry, ctx: OfferContext = {}): Offer {
  const why = providerReason(model.provider, ctx)
  if (why) return { offered: false, reason: why }
  if (model.provider === 'image' && !model.workflow)
    return { offered: false, reason: 'no workflow template for it yet' }
  const short = ctx.facts ? memoryShortfall(model, ctx.facts) : undefined
  return short ? { offered: false, reason: short } : { offered: true, reason: null }
}

function providerReason(kind: string, ctx: OfferContext): string | undefined {
  if (ctx.installed && !ctx.installed.has(kind)) return `no provider "${kind}" is installed`
  if (ctx.remote?.has(kind)) return undefined
  const backends = backendList(ctx.providers?.[kind])
  // Kinds the picker does not decide for (tts, third-party) run on any host: not second-guessed.
  // The machine's reason comes first: a slot would not help where no backend runs.
  if (backends.length > 0 && !backends.some((b) => b.ok)) return noBackendReason(backends)
  if (ctx.slotProviders && !ctx.slotProviders.has(kind))
    return `no slot runs provider "${kind}" (add one with provider = "${kind}")`
  return undefined
}

/**
 * Whether the slot `config` (as the slot system applied it: backend and runtime filled in by the
 * picker when its file names none) can load on this machine. A remote slot's upstream runs elsewhere
 * (always ok); a kind the picker does not decide for (tts, third-party) is not second-guessed.
 */
export function slotRunnable(config: SlotConfig, ctx: OfferContext): SlotRunnable {
  if (ctx.installed && !ctx.installed.has(config.provider))
    return { ok: false, reason: `no provider "${config.provider}" is installed`, backends: [] }
  const verdicts = ctx.providers?.[config.provider]
  const backends = backendList(verdicts)
  if (config.runtime === 'remote' || !verdicts) return { ok: true, reason: null, backends }
  const backend = config.backend
  const verdict = backend ? verdicts[backend] : undefined
  const elsewhere = backends.filter((b) => b.ok && b.backend !== backend).map((b) => b.backend)
  const instead = elsewhere.length
    ? `; ${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'runs' : 'run'} here (choose it in the slot's settings)`
    : ''
  if (!backends.some((b) => b.ok)) return { ok: false, reason: noBackendReason(backends), backends }
  if (!backend || !verdict)
    return { ok: false, reason: `${config.provider} has no backend "${backend}"${instead}`, backends }
  if (!verdict.ok)
    return { ok: false, reason: `cannot use ${backend} here: ${verdict.reason}${instead}`, backends }
  const runtime = config.runtime
  if (runtime && !verdict.runtimes.includes(runtime)) {
    const why = verdict.unavailable?.[runtime] ?? 'not supported'
    return { ok: false, reason: `cannot run ${backend} as a ${runtime} here: ${why}`, backends }
  }
  return { ok: true, reason: null, backends }
}

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

function backendList(verdicts: ProviderBackends | undefined): BackendRunnable[] {
  return Object.entries(verdicts ?? {}).map(([backend, v]) => ({
    backend,
    ok: v?.ok === true,
    reason: v && !v.ok ? v.reason : v ? null : 'unknown',
  }))
}

function noBackendReason(backends: BackendRunnable[]): string {
  const why = backends.map((b) => `${b.backend}: ${b.reason ?? 'unknown'}`)
  return backends.length === 1 ? why[0]! : `no backend runs here (${why.join('; ')})`
}
