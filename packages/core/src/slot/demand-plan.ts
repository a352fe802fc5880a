/**
 * The request queue's decision, as a pure function of the slot's state and who waits (like the
 * memory budget's `planFit`): which waiting requests may take a lease now, and whether to swap the
 * slot to another model. `SlotDemand` gathers the state, applies the step, and asks again on every
 * change (a lease released, a transition, a request arriving or leaving, a swap window ending).
 *
 * Not thrashing: while the loaded model has requests waiting, they keep being served; a request
 * for another model makes the slot swap once the loaded model has had `maxSwapWaitMs` since it was
 * ready or since that request arrived (whichever is later). A slot with nobody waiting for its
 * model and nothing in flight swaps at once (that costs nobody a wait); requests that waited for
 * the model now loaded are always served before it swaps again. Other models get their turn
 * in the order their oldest request arrived, so no request starves: each waits at most one window,
 * a drain and a load per model ahead of it.
 */

export interface DemandWaiter {
  id: number
  /** The ref asked for; null when the request named the slot (it takes whatever the slot holds). */
  ref: string | null
  /** When it arrived (clock ms). */
  since: number
}

export interface DemandState {
  now: number
  /** The ref the slot holds or is loading; null when it holds nothing and loads nothing. */
  held: string | null
  /** `held` takes leases now (ready, serving or idle). */
  ready: boolean
  /** Since when `held` is ready (clock ms): the start of its swap window. */
  readySince: number
  /** Requests in flight on the slot. */
  inflight: number
  /** 0: no limit. */
  maxConcurrent: number
  maxSwapWaitMs: number
  /** In arrival order. */
  waiters: readonly DemandWaiter[]
}

export interface DemandStep {
  /** Waiters that may take a lease now, in arrival order. */
  grant: number[]
  /** Load this ref into the slot (a swap when it holds another). */
  swapTo: string | null
  /** When to ask again if nothing else happens (a swap window ends); null: no deadline. */
  wakeAt: number | null
}

const NOTHING: DemandStep = { grant: [], swapTo: null, wakeAt: null }

/** Decides the next step. Pure. */
export function planDemand(s: DemandState): DemandStep {
  if (s.waiters.length === 0) return NOTHING
  const matches = (w: DemandWaiter) => w.ref === null || w.ref === s.held
  const firstOther = s.waiters.find((w) => !matches(w))
  if (s.held === null) {
    // Nothing held or coming: the oldest request that names a model decides what loads.
    return { grant: [], swapTo: firstOther?.ref ?? null, wakeAt: null }
  }
  if (!s.ready) return NOTHING // a load or unload is under way; its transitions ask again
  const mine = s.waiters.filter(matches)
  if (firstOther) {
    // Requests that waited for this very load are served before it goes again, whatever the
    // window: swapping away from them would load a model for nobody (a livelock at max_swap_wait 0).
    const loadedFor = mine.filter((w) => w.since < s.readySince)
    if (loadedFor.length > 0) return { grant: grantable(loadedFor, s), swapTo: null, wakeAt: null }
    const dueAt = Math.max(s.readySince, firstOther.since) + s.maxSwapWaitMs
    const idle = mine.length === 0 && s.inflight === 0
    if (idle || s.now >= dueAt) return { grant: [], swapTo: firstOther.ref, wakeAt: null }
    return { grant: grantable(mine, s), swapTo: null, wakeAt: dueAt }
  }
  return { grant: grantable(mine, s), swapTo: null, wakeAt: null }
}

function grantable(mine: readonly DemandWaiter[], s: DemandState): number[] {
  const room = s.maxConcurrent > 0 ? Math.max(0, s.maxConcurrent - s.inflight) : mine.length
  return mine.slice(0, room).map((w) => w.id)
}
