import type { ModelEntry } from '@svc/core'
import { type HardwareFacts, memoryShortfall, type ProviderBackends } from '@svc/providers'

/** What decides whether this machine can run a model (all optional: unknown = not second-guessed). */
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
  const verdicts = Object.entries(ctx.providers?.[kind] ?? {})
  // Kinds the picker does not decide for (tts, third-party) run on any host: not second-guessed.
  // The machine's reason comes first: a slot would not help where no backend runs.
  if (verdicts.length > 0 && !verdicts.some(([, v]) => v?.ok)) {
    const why = verdicts.map(([backend, v]) => `${backend}: ${v && !v.ok ? v.reason : 'unknown'}`)
    return verdicts.length === 1 ? why[0] : `no backend runs here (${why.join('; ')})`
  }
  if (ctx.slotProviders && !ctx.slotProviders.has(kind))
    return `no slot runs provider "${kind}" (add one with provider = "${kind}")`
  return undefined
}
