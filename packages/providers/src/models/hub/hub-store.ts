/**
 * How the model store answers a Hub name. A name already pulled (its files complete on disk) loads
 * as it was pulled, without asking the Hub (so offline, and pinned to that commit); otherwise the
 * Hub resolves it (`resolve-hub.ts`). A resolved name is registered only when its files are on disk:
 * the pull registers it once they are complete and verified, so a failed or corrupt download leaves
 * no ref behind. When the Hub cannot be reached, a name without a quant falls back to a quant of that
 * repo already on disk.
 */
import type { ModelEntry } from '@svc/core'
import type { HubConfig } from './hub-config'
import { type HubName, hubModelName, isHubName, parseHubName } from './hub-name'
import { resolveHubModel } from './resolve-hub'

/** What the store lends the Hub branch of `resolve`. */
export interface HubStoreContext {
  config: HubConfig
  registered(): Iterable<ModelEntry>
  withPath(entry: ModelEntry): Promise<ModelEntry>
  isPresent(entry: ModelEntry): Promise<boolean>
  /** Registers (no judging: `accept` has run). */
  register(entry: ModelEntry): Promise<ModelEntry>
}

export async function resolveHubSpec(
  ctx: HubStoreContext,
  name: HubName,
  accept?: (entry: ModelEntry) => void | Promise<void>,
): Promise<ModelEntry> {
  const pulled = async (tagged: boolean) => {
    const known = findPulled(ctx.registered(), name, tagged)
    if (!known || !(await ctx.isPresent(known))) return undefined
    const found = await ctx.withPath(known)
    await accept?.(found)
    return found
  }
  if (name.tag) {
    const found = await pulled(true)
    if (found) return found
  }
  let entry: ModelEntry
  try {
    entry = await resolveHubModel(ctx.config, name)
  } catch (error) {
    const code = (error as { code?: string }).code
    const offline = code === 'upstream.unavailable' || code === 'hub.rate_limited'
    const fallback = offline && !name.tag ? await pulled(false) : undefined
    if (fallback) return fallback
    throw error
  }
  const found = await ctx.withPath(entry)
  await accept?.(found)
  // On disk already (pulled before the registry lost it, or another quant's name for the same files).
  if (await ctx.isPresent(entry)) return ctx.register(entry)
  return found
}

/**
 * The canonical name a request's Hub name stands for, without asking the Hub (the dispatcher calls
 * this for every model it cannot find, so it must be cheap): the registered model it names in any
 * spelling (`hf:org/repo`, a lower-case quant, no quant), else `hf.co/<owner>/<repo>:<QUANT>` with the
 * quant upper-cased. Undefined for what is not a Hub name, a malformed one, or a file name as quant.
 */
export function hubAlias(registered: Iterable<ModelEntry>, spec: string): string | undefined {
  if ((spec.charCodeAt(0) | 0x20) !== 0x68 || !isHubName(spec)) return undefined // not "h…"
  let name: HubName | undefined
  try {
    name = parseHubName(spec)
  } catch {
    return undefined
  }
  if (!name) return undefined
  const known = findPulled(registered, name, name.tag !== undefined)
  if (known) return known.id
  if (!name.tag || /\.gguf$/i.test(name.tag) || name.tag.includes('/')) return undefined
  return hubModelName(name.repo, name.tag.toUpperCase())
}

/**
 * A Hub name not pulled yet, as the Hub resolves it (no judging, nothing registered), when that is
 * the name itself: for the slots that load on request. Undefined for anything else or on failure.
 */
export async function describeHub(ctx: HubStoreContext, ref: string): Promise<ModelEntry | undefined> {
  if (!isHubName(ref)) return undefined
  try {
    const entry = await resolveHubSpec(ctx, parseHubName(ref)!)
    return entry.id === ref ? entry : undefined
  } catch {
    return undefined
  }
}

/**
 * A registered Hub model `name` names: with a quant, that quant (or that file); without, the default
 * rule over the repo's pulled quants (Q4_K_M, then Q8_0, then the first).
 */
function findPulled(
  registered: Iterable<ModelEntry>,
  name: HubName,
  tagged: boolean,
): ModelEntry | undefined {
  const repo = name.repo.toLowerCase()
  const ofRepo = [...registered].filter((e) => e.hub?.repo.toLowerCase() === repo)
  if (tagged) {
    const tag = (name.tag ?? '').toLowerCase()
    return ofRepo.find((e) => {
      const file = e.hub!.file.toLowerCase()
      return e.hub!.quant.toLowerCase() === tag || file === tag || file.endsWith(`/${tag}`)
    })
  }
  const byQuant = (q: string) => ofRepo.find((e) => e.hub!.quant.toUpperCase() === q)
  return byQuant('Q4_K_M') ?? byQuant('Q8_0') ?? ofRepo[0]
}
