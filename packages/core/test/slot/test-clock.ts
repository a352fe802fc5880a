/**
 * A clock that moves only when a test says so, for the slot owner's unit tests: no test waits on the
 * wall clock, so they are exact and do not slow down (or flake) on a busy machine.
 */
import type { Clock } from '../../src/clock'

export interface TestClock extends Clock {
  /** Moves time forward by `ms`, firing due sleeps in time order and letting promise chains settle. */
  advance(ms: number): Promise<void>
  /**
   * Settles pending promise chains, then jumps from sleep to sleep until `promise` settles (at most
   * `maxMs` of clock time). Resolves or rejects as `promise` does; throws when it never settles.
   */
  run<T>(promise: Promise<T>, maxMs?: number): Promise<T>
  /** Lets every promise chain that can settle now settle (no clock time passes). */
  settle(): Promise<void>
  /** Sleeps not yet due. */
  readonly pending: number
}

interface Sleeper {
  at: number
  resolve(): void
}

export function createTestClock(start = 1_000_000): TestClock {
  let now = start
  const sleepers: Sleeper[] = []
  const remove = (s: Sleeper) => {
    const i = sleepers.indexOf(s)
    if (i >= 0) sleepers.splice(i, 1)
  }
  // A macrotask turn: every microtask queued before it (whole promise chains) has run by then.
  const settle = () => new Promise<void>((r) => setImmediate(r))
  // The earliest sleep; among equals the first one made (they fire in the order they were asked for).
  const next = () => sleepers.reduce<Sleeper | undefined>((a, b) => (!a || b.at < a.at ? b : a), undefined)

  const clock: TestClock = {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        const sleeper: Sleeper = {
          at: now + Math.max(0, ms),
          resolve: () => {
            signal?.removeEventListener('abort', onAbort)
            resolve()
          },
        }
        const onAbort = () => {
          remove(sleeper)
          reject(signal?.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        sleepers.push(sleeper)
      }),
    settle,
    async advance(ms) {
      const until = now + ms
      await settle()
      for (;;) {
        const due = next()
        if (!due || due.at > until) break
        now = Math.max(now, due.at)
        remove(due)
        due.resolve()
        await settle()
      }
      now = until
      await settle()
    },
    async run(promise, maxMs = 3_600_000) {
      let settled = false
      const watched = promise.finally(() => {
        settled = true
      })
      watched.catch(() => undefined)
      const limit = now + maxMs
      await settle()
      while (!settled) {
        const due = next()
        if (!due || due.at > limit) {
          throw new Error(`test clock: the promise did not settle (${sleepers.length} sleeps pending)`)
        }
        await clock.advance(due.at - now)
      }
      return watched
    },
    get pending() {
      return sleepers.length
    },
  }
  return clock
}
