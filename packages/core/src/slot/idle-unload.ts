/**
 * Idle unload (`unload_after`): a slot that has had no request for that long unloads itself. The
 * timer starts when the slot becomes ready or idle and stops at anything else (a request, an
 * unload); when it fires, `Slot.evictIfIdle` decides on the spot, so a request that arrived in
 * between keeps the model. A pinned slot never unloads by itself.
 */

import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { Slot } from './slot'

export interface IdleUnloadOptions {
  slot: Slot
  bus: EventBus<SvcEvents>
  clock: Clock
  /** The current `unload_after` (ms; 0 never) and `pinned`, read each time the timer starts. */
  policy(): { unloadAfterMs: number; pinned: boolean }
}

const DISARMED = Symbol('disarmed')

export function watchIdle(o: IdleUnloadOptions): () => void {
  let timer: AbortController | null = null
  const disarm = () => {
    timer?.abort(DISARMED) // a reason of its own: abort() alone makes a DOMException per request
    timer = null
  }
  const arm = () => {
    disarm()
    const { unloadAfterMs, pinned } = o.policy()
    if (unloadAfterMs <= 0 || pinned) return
    const mine = new AbortController()
    timer = mine
    o.clock.sleep(unloadAfterMs, mine.signal).then(
      () => {
        if (timer !== mine) return
        timer = null
        const model = o.slot.currentModel()?.id ?? null
        const unloading = o.slot.evictIfIdle()
        if (!unloading) return
        o.bus.emit('slot.auto', {
          slot: o.slot.name,
          action: 'unload',
          reason: 'idle',
          model,
          at: o.clock.now(),
        })
        void unloading.catch(() => undefined)
      },
      () => undefined,
    )
  }
  return o.bus.on('slot.transition', (e) => {
    if (e.slot !== o.slot.name) return
    if (e.to === 'ready' || e.to === 'idle') arm()
    else disarm()
  })
}
