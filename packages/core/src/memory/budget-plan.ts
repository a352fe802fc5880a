/**
 * The memory budget's decision, as pure functions: does a load fit on its device, which
 * idle slots to unload first when the slot may evict, and the reason a person reads when it does
 * not fit. Like llama-swap's eviction policy it is a function of the running set only; the caller
 * (the API's admission) gathers the set, unloads what the plan names, and checks again.
 */
import type { MemoryUse } from '../slot-driver'
import type { SlotState } from '../slot-states'

/** One slot that holds (or is about to hold) memory on a device. */
export interface MemoryHolder {
  slot: string
  model: string
  state: SlotState
  /** What the load was expected to take. */
  estimateBytes: number
  /** How the estimate was reckoned, for people ("weights 639 MB + KV cache 448 MB (ctx 4096)"). */
  estimate: string
  /** What the upstream really uses once loaded; null when not measured (yet). */
  usedBytes: number | null
  usedBy: MemoryUse['by'] | null
  /** What the budget counts: the larger of the estimate and the real use. */
  chargedBytes: number
  /** The last time a request finished or started on it (LRU order); null when never used. */
  lastUsedAt: number | null
  inflight: number
  /** Could be unloaded now without touching a request: ready or idle, nothing in flight. */
  evictable: boolean
  /** A spare slot (`primary-2`, `spare-plan.ts`): evicted before any named slot. */
  spare?: boolean
}

export interface FitQuestion {
  /** Null budget: the device's size is unknown and no override is set, so nothing is refused. */
  budgetBytes: number | null
  /** The other slots on the device (never the one that is loading: its old model goes anyway). */
  holders: readonly MemoryHolder[]
  needBytes: number
  /** The loading slot's `evict = "idle"`. */
  mayEvict: boolean
}

export type FitAnswer =
  | {
      fits: true /** Unload these first, least recently used first; empty when it fits as is. */
      evict: string[]
    }
  | { fits: false; usedBytes: number; freeBytes: number }

export function chargedBytes(estimateBytes: number, usedBytes: number | null): number {
  return Math.max(estimateBytes, usedBytes ?? 0)
}

/** Decides whether `needBytes` fit, possibly after unloading idle holders (LRU). Pure. */
export function planFit(q: FitQuestion): FitAnswer {
  const usedBytes = q.holders.reduce((sum, h) => sum + h.chargedBytes, 0)
  if (q.budgetBytes === null) return { fits: true, evict: [] }
  let free = q.budgetBytes - usedBytes
  if (q.needBytes <= free) return { fits: true, evict: [] }
  if (q.mayEvict) {
    const evict: string[] = []
    for (const holder of lruOrder(q.holders.filter((h) => h.evictable))) {
      evict.push(holder.slot)
      free += holder.chargedBytes
      if (q.needBytes <= free) return { fits: true, evict }
    }
  }
  return { fits: false, usedBytes, freeBytes: q.budgetBytes - usedBytes }
}

/**
 * The eviction order: spare slots first, then named ones; within each, least recently used first
 * (never used counts as oldest); ties by slot name (deterministic).
 */
export function lruOrder(holders: readonly MemoryHolder[]): MemoryHolder[] {
  return [...holders].sort(
    (a, b) =>
      Number(b.spare ?? false) - Number(a.spare ?? false) ||
      (a.lastUsedAt ?? -1) - (b.lastUsedAt ?? -1) ||
      a.slot.localeCompare(b.slot),
  )
}

export interface ShortfallContext {
  slot: string
  model: string
  needBytes: number
  estimate: string
  deviceLabel: string
  budgetBytes: number
  usedBytes: number
  holders: readonly MemoryHolder[]
  mayEvict: boolean
  /** The slot's config file, named in the hint (`slots/embed.toml`). */
  file: string
}

/** The 409 message: what the load needs, what is free, and which slots hold the rest. */
export function shortfallMessage(c: ShortfallContext): string {
  const free = Math.max(0, c.budgetBytes - c.usedBytes)
  const holders = c.holders.length
    ? `; held by ${c.holders.map(describeHolder).join(', ')}`
    : '; nothing else holds it (the budget is smaller than this model)'
  const busy = c.holders.filter((h) => !h.evictable).map((h) => `"${h.slot}"`)
  const hint = !c.holders.length
    ? 'Raise SVC_MEMORY_BUDGET_GB or lower SVC_MEMORY_RESERVE_GB, or load a smaller model'
    : c.mayEvict
      ? `Unloading every idle slot would not make room${busy.length ? ` (busy: ${busy.join(', ')})` : ''}`
      : `Unload a slot, or set evict = "idle" in ${c.file} to unload idle ones first`
  return (
    `slot "${c.slot}" cannot load "${c.model}": it needs ~${formatBytes(c.needBytes)} (${c.estimate}) ` +
    `and ${c.deviceLabel} has ${formatBytes(free)} free of a ${formatBytes(c.budgetBytes)} budget` +
    `${holders}. ${hint}.`
  )
}

function describeHolder(h: MemoryHolder): string {
  const busy = h.inflight > 0 ? `, ${h.inflight} request${h.inflight === 1 ? '' : 's'} in flight` : ''
  return `slot "${h.slot}" (${h.model}, ${formatBytes(h.chargedBytes)}, ${h.state}${busy})`
}

/** Binary units (as /proc/meminfo and GPU tools count): "48.1 MiB", "6.4 GiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let value = Math.abs(bytes)
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1
  return `${bytes < 0 ? '-' : ''}${value.toFixed(digits)} ${units[unit]}`
}
