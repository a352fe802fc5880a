/**
 * What a request waiting in a slot's queue is told while its model loads (slot-demand.ts asks on each
 * transition and progress step; a streamed request shows it as SSE comments, the dispatcher's
 * loading-notice.ts). Pure: the slot's snapshot in, the notice out.
 */
import { PENDING_STATES } from '../slot-states'
import type { SlotSnapshot } from './slot'

/** What a waiting request is told while its model loads (a streamed request shows it to the client). */
export interface LoadingNotice {
  model: string
  /**
   * The slot's state while it holds `model` (`pulling`, `starting`, `warming`). Before that, nothing
   * of the slot's own state: `swapping` while it still holds another model (`replacing`), which a
   * swap drains and unloads first; `queued` while it holds none and the load has not begun.
   */
  state: string
  /** The model the slot still holds and unloads first (a swap); absent otherwise. */
  replacing?: string
  /** 0–100 while pulling with a known size; null otherwise. */
  percent: number | null
}

const PENDING: readonly string[] = PENDING_STATES

/**
 * The notice for a request waiting for `ref` (null: whatever the slot holds), given the ref a load on
 * request brings in (`swapping`, null when none) and the pull's `percent` when an event told it;
 * undefined when the slot loads nothing that request waits for.
 */
export function demandNotice(
  snap: SlotSnapshot,
  swapping: string | null,
  ref: string | null,
  percent: number | null,
): LoadingNotice | undefined {
  const loading = swapping ?? (PENDING.includes(snap.state) ? snap.model : null)
  if (loading === null || (ref !== null && ref !== loading)) return undefined
  // Until the slot holds the model it loads, its state and progress are the old model's.
  if (snap.model !== loading) {
    const replacing = snap.model ?? undefined
    const state = replacing ? 'swapping' : 'queued'
    return { model: loading, state, percent: null, ...(replacing ? { replacing } : {}) }
  }
  const p =
    percent ?? (snap.progress?.total ? Math.round((snap.progress.done / snap.progress.total) * 100) : null)
  return { model: loading, state: snap.state, percent: p }
}
