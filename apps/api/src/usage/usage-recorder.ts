/**
 * Counts what each caller uses, in memory, and writes it to the ledger in batches.
 *
 * `record` runs at the end of every inference request: it adds to a Map entry and to the quota
 * meter, nothing else (no I/O: the relay never waits on the disk). A timer writes the batch every
 * `flushMs` (default 2 s) in one transaction, and `close` writes the last one. So a crash or
 * `kill -9` loses at most the last `flushMs` of counts; a failed write keeps the batch for the next try.
 *
 * The ledger is first touched when it is needed, not at start: on the first use of `meter` (today's
 * tokens are seeded from the ledger before anything is counted or checked), the first batch, or the
 * first query; old rows are pruned then and hourly after. An idle API opens no database.
 */
import type { QuotaMeter } from '@svc/auth'
import { remember } from '@svc/core'
import type { DispatchRecord } from '@svc/dispatcher'
import type { LedgerDelta, UsageLedger } from './ledger'
import { addCounters } from './usage-types'

/** Who a request is counted for: a token id and/or a forwarded identity ('' when none). */
export interface UsageSubject {
  token: string
  identity: string
}

export interface Retention {
  /** Days of hourly rows (SVC_USAGE_HOURLY_DAYS, default 90); older ones become daily rows. */
  hourlyDays: number
  /** Days of daily rows (SVC_USAGE_DAILY_DAYS); 0 keeps them. */
  dailyDays: number
}

export interface UsageRecorderOptions {
  ledger: UsageLedger
  meter: QuotaMeter
  clock?: () => number
  flushMs?: number
  retention?: Retention
  /** Called with each request's tokens for a token (the per-token Prometheus counters). */
  onTokenUse?: (tokenId: string, promptTokens: number, completionTokens: number) => void
  onProblem?: (message: string) => void
}

export interface UsageRecorder {
  /** The ledger, seeded and pruned before the first query reaches it. */
  readonly ledger: UsageLedger
  /** The quota meter to check and count with: seeded with today's tokens from the ledger on first use. */
  readonly meter: QuotaMeter
  /** Counts one finished request (memory only). */
  record(subject: UsageSubject, r: DispatchRecord): void
  /** Writes what is pending now (synchronous; also done by the timer). */
  flush(): void
  /** Stops the timer, writes the last batch and closes the database. Idempotent. */
  close(): void
}

const HOUR_S = 3600
const DAY_MS = 86_400_000

/** The quota meter's key of a token (made once per token: this runs on every request of one). */
export function tokenKey(id: string): string {
  return keyOf(TOKEN_KEYS, 't:', id)
}
/** The quota meter's key of a forwarded identity. */
export function identityKey(email: string): string {
  return keyOf(IDENTITY_KEYS, 'i:', email)
}

const TOKEN_KEYS = new Map<string, string>()
const IDENTITY_KEYS = new Map<string, string>()

function keyOf(keys: Map<string, string>, prefix: string, id: string): string {
  return keys.get(id) ?? remember(keys, id, prefix + id)
}

export function createUsageRecorder(options: UsageRecorderOptions): UsageRecorder {
  const { ledger, onProblem } = options
  const clock = options.clock ?? Date.now
  const retention = options.retention ?? { hourlyDays: 90, dailyDays: 0 }
  let pending = new Map<string, LedgerDelta>()
  let closed = false
  let lastPrune = 0
  // The row the previous request went to: steady traffic of one caller on one model reuses it
  // without building the row's key (the strings compare by identity first).
  let last: LedgerDelta | undefined

  let started = false
  const meter = seededOnFirstUse(options.meter, start)

  const timer = setInterval(flush, options.flushMs ?? 2000)
  timer.unref()

  /** Once, before the ledger's first use: seeds the meter, prunes. */
  function start() {
    if (started) return
    started = true
    // Today's tokens per caller from the ledger: a restart does not hand out a fresh day.
    // This runs inside a request's quota check: a ledger that cannot be read is reported, never thrown.
    const today = Math.floor(clock() / DAY_MS) * (DAY_MS / 1000)
    try {
      const seen = ledger.tokensSince(today)
      for (const [id, n] of seen.tokens) options.meter.seedDay(tokenKey(id), n)
      for (const [email, n] of seen.identities) options.meter.seedDay(identityKey(email), n)
    } catch (error) {
      onProblem?.(`usage ledger: reading today's tokens failed: ${String(error)}`)
    }
    prune()
  }

  function prune() {
    const now = clock()
    if (now - lastPrune < HOUR_S * 1000) return
    lastPrune = now
    try {
      ledger.prune(Math.floor(now / 1000), retention)
    } catch (error) {
      onProblem?.(`usage ledger: pruning failed: ${String(error)}`)
    }
  }

  function flush() {
    if (!started) {
      if (pending.size === 0) return
      start()
    }
    if (pending.size > 0 && !closed) {
      const batch = pending
      pending = new Map()
      last = undefined
      try {
        ledger.add([...batch.values()])
      } catch (error) {
        // Kept for the next try (merged with what came meanwhile): counts are late, not lost.
        for (const [k, d] of batch) {
          const now = pending.get(k)
          if (now) addCounters(now, d)
          else pending.set(k, d)
        }
        onProblem?.(`usage ledger: write failed, will retry: ${String(error)}`)
      }
    }
    prune()
  }

  return {
    ledger: {
      ...ledger,
      query(q) {
        start()
        return ledger.query(q)
      },
    },
    meter,
    record(subject, r) {
      const ok = r.status >= 200 && r.status < 300
      const prompt = r.usage?.promptTokens ?? 0
      const completion = r.usage?.completionTokens ?? 0
      const hour = Math.floor(clock() / 3_600_000) * HOUR_S
      const model = r.model ?? '-'
      let d = last
      if (
        !d ||
        d.hour !== hour ||
        d.token !== subject.token ||
        d.identity !== subject.identity ||
        d.slot !== r.slot ||
        d.model !== model
      )
        d = pending.get(`${hour}\u0000${subject.token}\u0000${subject.identity}\u0000${r.slot}\u0000${model}`)
      if (!d) {
        d = {
          hour,
          token: subject.token,
          identity: subject.identity,
          slot: r.slot,
          model,
          requests: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          audio_seconds: 0,
          characters: 0,
          images: 0,
        }
        pending.set(`${hour}\u0000${subject.token}\u0000${subject.identity}\u0000${r.slot}\u0000${model}`, d)
      }
      last = d
      d.requests++
      d.prompt_tokens += prompt
      d.completion_tokens += completion
      const audio = ok && r.route === '/v1/audio/transcriptions' ? (r.usage?.audioSeconds ?? 0) : 0
      const characters = ok ? (r.units?.characters ?? 0) : 0
      const images = ok ? (r.units?.images ?? 0) : 0
      d.audio_seconds += audio
      d.characters += characters
      d.images += images
      const tokens = prompt + completion
      if (subject.token) {
        meter.spend(tokenKey(subject.token), tokens)
        options.onTokenUse?.(subject.token, prompt, completion)
      }
      if (subject.identity) meter.spend(identityKey(subject.identity), tokens)
    },
    flush,
    close() {
      if (closed) return
      clearInterval(timer)
      flush()
      closed = true
      ledger.close()
    },
  }
}

/** `meter`, calling `seed` (once it has run, a flag test) before each use. */
function seededOnFirstUse(meter: QuotaMeter, seed: () => void): QuotaMeter {
  return {
    check(key, limits) {
      seed()
      return meter.check(key, limits)
    },
    admit(key) {
      seed()
      meter.admit(key)
    },
    spend(key, tokens) {
      seed()
      meter.spend(key, tokens)
    },
    seedDay(key, tokens) {
      seed()
      meter.seedDay(key, tokens)
    },
    state(key, limits) {
      seed()
      return meter.state(key, limits)
    },
    addHeaders(head, key, limits) {
      seed()
      meter.addHeaders(head, key, limits)
    },
  }
}
