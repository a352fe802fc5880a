/**
 * Speed and time left of a transfer from successive `(done, at)` samples: an exponential moving
 * average of bytes per second, so one slow or fast chunk does not make the ETA jump. Pure; the clock
 * is the samples' own `at`.
 */
export interface TransferRate {
  /** Feeds a sample; returns the smoothed rate in bytes per second (null until two samples). */
  sample(done: number, at: number): number | null
  /** Seconds left at the current rate, or null when the rate or the total is unknown. */
  eta(done: number, total: number | null): number | null
  reset(): void
}

export function createTransferRate(smoothing = 0.3): TransferRate {
  let last: { done: number; at: number } | undefined
  let rate: number | null = null
  return {
    sample(done, at) {
      if (last && done < last.done) {
        // a restarted transfer: start over
        last = undefined
        rate = null
      }
      if (last && at > last.at) {
        const instant = ((done - last.done) * 1000) / (at - last.at)
        rate = rate === null ? instant : rate + smoothing * (instant - rate)
      }
      if (!last || at > last.at) last = { done, at }
      return rate
    },
    eta(done, total) {
      if (total === null || rate === null || rate <= 0) return null
      return Math.max(0, (total - done) / rate)
    },
    reset() {
      last = undefined
      rate = null
    },
  }
}
