/**
 * Throttling of failed authentication attempts per client (a token bucket of failures per key).
 *
 * Each key may fail `burst` times at once; one more failure is allowed every `refillMs`. A key with
 * no failure left is refused until one refills, and the caller answers 429 with `Retry-After`
 * *before* doing any argon2 work, so guessing tokens is slow and cannot burn CPU. Success never
 * refunds earlier failures (one valid token must not reset a guesser's budget).
 *
 * Concurrent attempts: a caller about to do expensive work `take`s a failure first (check and count
 * in one step, so 200 attempts at once cannot all pass a check made before any of them failed) and
 * `refund`s exactly that one if the attempt succeeds.
 *
 * Memory is bounded: at most `maxKeys` keys. When full, keys whose bucket is full again are dropped
 * first, then the least recently failed. Clients are keyed by `clientKey` (IPv6 by /64), so a
 * single host cannot spread its attempts over many addresses of its own prefix.
 */

export interface FailureThrottleOptions {
  /** Failures allowed at once. Default 10. */
  burst?: number
  /** One more failure allowed after this long. Default 6 s (10 a minute). */
  refillMs?: number
  /** Most keys remembered. Default 10 000. */
  maxKeys?: number
  clock?: () => number
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterS: number }

export interface FailureThrottle {
  /** Whether `key` may make another attempt now (does not count one). */
  check(key: string): ThrottleDecision
  /** Counts one failed attempt for `key`. */
  fail(key: string): void
  /**
   * Reserves one failure for an attempt about to run: refused (nothing counted) when `key` has none
   * left, else counted at once as if it had failed.
   */
  take(key: string): ThrottleDecision
  /** Gives back one failure taken by `take` for an attempt that turned out not to be one. */
  refund(key: string): void
  /** Number of keys held (for tests and metrics). */
  readonly size: number
}

interface Bucket {
  /** Failures still allowed at `at`. */
  left: number
  at: number
}

export function createFailureThrottle(options: FailureThrottleOptions = {}): FailureThrottle {
  const burst = options.burst ?? 10
  const refillMs = options.refillMs ?? 6000
  const maxKeys = options.maxKeys ?? 10_000
  const clock = options.clock ?? Date.now
  const buckets = new Map<string, Bucket>()

  const leftNow = (b: Bucket, now: number) => Math.min(burst, b.left + (now - b.at) / refillMs)

  function evict(now: number) {
    for (const [key, b] of buckets) if (leftNow(b, now) >= burst) buckets.delete(key)
    // Map iteration is in insertion order, and `fail` re-inserts: the first keys failed least recently.
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break
      buckets.delete(key)
    }
  }

  const throttle: FailureThrottle = {
    check(key) {
      const b = buckets.get(key)
      if (!b) return { allowed: true }
      const left = leftNow(b, clock())
      if (left >= 1) return { allowed: true }
      // Rounded to whole ms first: float error must not add a second.
      return { allowed: false, retryAfterS: Math.max(1, Math.ceil(Math.round((1 - left) * refillMs) / 1000)) }
    },
    fail(key) {
      const now = clock()
      const b = buckets.get(key)
      const left = b ? leftNow(b, now) : burst
      buckets.delete(key)
      if (buckets.size >= maxKeys) evict(now)
      buckets.set(key, { left: Math.max(0, left - 1), at: now })
    },
    take(key) {
      const decision = throttle.check(key)
      if (decision.allowed) throttle.fail(key)
      return decision
    },
    refund(key) {
      const b = buckets.get(key)
      if (!b) return // evicted meanwhile: nothing is held against it
      const now = clock()
      const left = leftNow(b, now) + 1
      // A full bucket is the same as none: a client whose attempts all succeeded leaves no trace.
      if (left >= burst) buckets.delete(key)
      else buckets.set(key, { left, at: now })
    },
    get size() {
      return buckets.size
    },
  }
  return throttle
}
