import type { Clock } from '../clock'
import { SvcError } from '../errors'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'

/** What `waitForLeasable` needs to know about a slot (kept narrow so it is testable alone). */
export interface LeaseWaiter {
  slot: string
  bus: EventBus<SvcEvents>
  clock: Clock
  isLeasable(): boolean
  /** A load or restart is under way: waiting may succeed. */
  isPending(): boolean
}

/**
 * Resolves when the slot can take a lease. Waits while a load or restart is under way, bounded by
 * `timeoutMs` (then 503 `slot.unavailable` with `Retry-After`) and by `signal` (a client that went
 * away stops waiting). Throws `model.not_loaded` when nothing is coming, or `upstream.unavailable`
 * with the failure when the awaited load failed.
 */
export async function waitForLeasable(
  w: LeaseWaiter,
  options: { signal?: AbortSignal; timeoutMs: number },
): Promise<void> {
  if (w.isLeasable()) return
  if (!w.isPending()) {
    throw new SvcError(
      'model.not_loaded',
      `slot "${w.slot}" holds no model; load one with: svc slot load ${w.slot} --model <id>`,
      {
        param: 'model',
      },
    )
  }
  options.signal?.throwIfAborted()
  const stop = new AbortController()
  const onAbort = () => stop.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    await new Promise<void>((resolve, reject) => {
      const off = w.bus.on('slot.transition', (event) => {
        if (event.slot !== w.slot) return
        if (w.isLeasable()) return done(resolve)
        if (event.to !== 'offline') return
        // A failure ends the wait at once; a plain unload ends it unless another load is queued (a swap).
        if (event.error) {
          done(() =>
            reject(new SvcError('upstream.unavailable', `slot "${w.slot}" failed to load: ${event.error}`)),
          )
        } else if (!w.isPending()) {
          done(() =>
            reject(new SvcError('model.not_loaded', `slot "${w.slot}" was unloaded`, { param: 'model' })),
          )
        }
      })
      const done = (settle: () => void) => {
        off()
        stop.abort()
        settle()
      }
      w.clock.sleep(options.timeoutMs, stop.signal).then(
        () =>
          done(() =>
            reject(
              new SvcError(
                'slot.unavailable',
                `slot "${w.slot}" is not ready after ${Math.round(options.timeoutMs / 1000)} s`,
                {
                  headers: { 'Retry-After': '5' },
                },
              ),
            ),
          ),
        () => {
          if (options.signal?.aborted) done(() => reject(options.signal?.reason))
        },
      )
    })
  } finally {
    options.signal?.removeEventListener('abort', onAbort)
  }
}
