/**
 * What can run here, in one place (issue 39): whether svc offers a model on this machine (`offer`) and
 * whether a slot, as configured, can load here (`slotRunnable`), judged from the picker's verdicts
 * (`buildHardwareReport`). The API serves these verdicts (`GET /api/slots` → `runnable`, `GET
 * /api/models` → `offered`, `GET /v1/models`' listing) to the dashboard, the chat app and the CLI;
 * `svc doctor` calls the same functions over the same report when the API is down. Nothing else
 * works it out on its own.
 */
import type { ModelEntry, SlotConfig } from '@svc/core'
import { memoryShortfall, type ProviderBackends } from './decide'
import type { HardwareFacts } from './detect'

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
