/**
 * Spare slots (docs/self-managing-slots.md, "Spare slots"), the decision as pure functions: a request
 * for a model that no slot holds, on a slot that loads on request and already holds another, goes to
 * a **spare slot** beside it (`primary-2`, `-3`, …: the same provider, backend, runtime and settings)
 * when the memory budget has room for both, instead of swapping; up to the slot's `max_loaded`
 * (unset: what memory allows, at most {@link DEFAULT_MAX_LOADED}, as llama.cpp's router keeps by
 * default). When memory is short or unknown, the slot swaps as it always has. `SpareSlots` gathers
 * the inputs and applies the answer; the memory budget evicts spares before any named slot
 * (`lruOrder`).
 */
import type { SlotConfig } from '../slot-config'

/** `max_loaded` when the slot file leaves it unset (llama.cpp's router: `--models-max 4`). */
export const DEFAULT_MAX_LOADED = 4

/**
 * How long an idle spare stays when its parent sets no `unload_after` (nor `SVC_UNLOAD_AFTER`):
 * 5 minutes, Ollama's default `keep_alive`. A spare never stays for good: it only holds memory the
 * budget could give to a named slot.
 */
export const SPARE_UNLOAD_AFTER_MS = 5 * 60_000

export interface SpareQuestion {
  /** The ref the request asks for. */
  ref: string
  /**
   * What each member of the family holds or is loading, the parent first, then its spares in
   * order; null where a member holds nothing.
   */
  family: readonly (string | null)[]
  /** The parent's `max_loaded` (`DEFAULT_MAX_LOADED` when unset); 1 restores the plain swap. */
  maxLoaded: number
  /**
   * Whether the memory budget has room for the ref beside everything loaded now, without evicting
   * anything; null when the budget is unknown (no device detected, no `SVC_MEMORY_BUDGET_GB`).
   */
  room: boolean | null
}

export type SpareDecision =
  /** A member already holds (or loads) the ref: its queue takes the request. */
  | { to: 'member'; index: number }
  /** The parent's own queue: it loads the ref when empty, else swaps (today's rule). */
  | { to: 'parent' }
  /** Open a new spare slot for the ref. */
  | { to: 'spare' }

/** Where a request for `q.ref` goes. Pure. */
export function planSpare(q: SpareQuestion): SpareDecision {
  const at = q.family.indexOf(q.ref)
  if (at >= 0) return { to: 'member', index: at }
  // The parent holds nothing: it loads the ref itself, as without spares.
  if (q.family[0] === null || q.family[0] === undefined) return { to: 'parent' }
  const loaded = q.family.reduce((n, m) => (m === null ? n : n + 1), 0)
  // Never beyond max_loaded; never when memory is short or its size unknown: the swap applies.
  if (loaded >= q.maxLoaded || q.room !== true) return { to: 'parent' }
  return { to: 'spare' }
}

/** The first free name `<parent>-<n>`, n ≥ 2 (`taken` answers for named slots and other spares). */
export function spareName(parent: string, taken: (name: string) => boolean): string {
  for (let n = 2; ; n++) {
    const name = `${parent}-${n}`
    if (!taken(name)) return name
  }
}

/**
 * A spare's config: its parent's, under its own name. Never pinned (a spare is the first to go),
 * no default model (it exists only while it holds one) and never written to a file.
 */
export function spareConfig(parent: SlotConfig, name: string): SlotConfig {
  return {
    ...parent,
    name,
    demand: { ...parent.demand, pinned: false },
    model: {},
  }
}

/** A spare's idle unload (ms): its parent's when it has one, else {@link SPARE_UNLOAD_AFTER_MS}. */
export function spareUnloadAfterMs(parentUnloadAfterMs: number | undefined): number {
  return parentUnloadAfterMs !== undefined && parentUnloadAfterMs > 0
    ? parentUnloadAfterMs
    : SPARE_UNLOAD_AFTER_MS
}
