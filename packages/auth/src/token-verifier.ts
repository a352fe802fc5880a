/**
 * Bearer token verification with a cache of verified tokens.
 *
 * The fast path (a token seen before, store not stale) is a length check, one sha256 of the token,
 * a Map lookup and a comparison with the store's record: no argon2, no I/O, no allocation. It
 * returns synchronously. Everything else returns a promise:
 *
 * 1. refresh the store (a stat; re-read only when the file changed),
 * 2. refuse a throttled client before doing any work (`auth.throttled`),
 * 3. parse strictly, look the id up, verify the secret with argon2id: identical concurrent attempts
 *    share one hash; a new hash first takes one failure from the client's budget (given back when
 *    the token verifies), so concurrent guesses cannot run more hashes than the budget allows; at
 *    most `maxHashesPerClient` hashes of one client run or wait at once, and at most
 *    `maxConcurrentHashes` run over all clients,
 * 4. cache the principal under sha256(token), or leave the failure counted.
 *
 * A cached entry is valid only while the store holds the same record (same id and hash): a
 * revocation, local or read from disk, makes the next check miss and fail. Entries of records that
 * are gone are dropped whenever the store takes a new state. The cache holds at most `cacheSize`
 * entries; only tokens that verified enter it, so an attacker cannot fill it.
 */
import { hash } from 'node:crypto'
import { compileModelGlobs } from './model-globs'
import type { TokenPrincipal } from './principal'
import { verifySecret as argon2Verify } from './secret-hash'
import { createFailureThrottle, type FailureThrottle } from './throttle'
import { parseToken, TOKEN_LENGTH } from './token-format'
import type { TokenStore } from './token-store'
import type { TokenRecord } from './tokens-file'

export type VerifyResult =
  | { ok: true; principal: TokenPrincipal }
  | { ok: false; code: 'auth.invalid'; reason: string }
  | { ok: false; code: 'auth.throttled'; retryAfterS: number }

export interface TokenVerifierOptions {
  store: TokenStore
  /** Failed attempts per client. Default `createFailureThrottle()`. */
  throttle?: FailureThrottle
  /** Most verified tokens kept. Default 10 000. */
  cacheSize?: number
  /** The argon2id check; injectable so tests can count how often it runs. */
  verifySecret?: (phc: string, secret: string) => Promise<boolean>
  /**
   * argon2 runs at once, over all clients (each holds ~19 MiB and a libuv thread that file I/O also
   * needs). Default 2. Further first uses wait in a queue of `maxQueuedHashes` (default 64); beyond
   * it they get `auth.throttled` (Retry-After 1) without counting as a failure, so a flood from many
   * addresses cannot starve the server.
   */
  maxConcurrentHashes?: number
  maxQueuedHashes?: number
  /**
   * argon2 checks one client (throttling key) may have running or waiting at once. Default 2: a few
   * clients cannot fill the queue and turn everyone else's first use of a valid token away; beyond
   * it an attempt gets `auth.throttled` (Retry-After 1), not counted as a failure.
   */
  maxHashesPerClient?: number
}

export interface TokenVerifier {
  /**
   * Verifies a bearer token (the text after `Bearer `) for a client: its throttling key
   * (`clientKey(address)`), or a function computing it, called only when the cache cannot answer.
   * Synchronous for a cached token, a promise otherwise; never throws, never rejects.
   */
  verify(token: string, client: string | (() => string)): VerifyResult | Promise<VerifyResult>
  /** Verified tokens currently cached. */
  readonly cacheSize: number
}

interface Entry {
  record: TokenRecord
  result: { ok: true; principal: TokenPrincipal }
}

const MALFORMED = 'malformed bearer token'
/** Too much hashing at once (over all clients, or by this one): try again in a second; not a failure. */
const BUSY: VerifyResult = { ok: false, code: 'auth.throttled', retryAfterS: 1 }
const UNKNOWN = 'unknown or revoked token'

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const { store } = options
  const throttle = options.throttle ?? createFailureThrottle()
  const maxEntries = options.cacheSize ?? 10_000
  const check = options.verifySecret ?? argon2Verify
  const cache = new Map<string, Entry>()
  const inflight = new Map<string, Promise<boolean | 'busy'>>()
  const hashGate = createHashGate(options.maxConcurrentHashes ?? 2, options.maxQueuedHashes ?? 64)
  const perClientMax = options.maxHashesPerClient ?? 2
  const hashesOf = new Map<string, number>()
  let seenVersion = store.version

  /** The cached result if the entry still matches the store; drops it otherwise. */
  function fromCache(key: string): VerifyResult | undefined {
    if (store.version !== seenVersion) prune()
    const entry = cache.get(key)
    if (!entry) return undefined
    const current = store.lookup(entry.record.id)
    if (current !== entry.record) {
      if (current === undefined || current.hash !== entry.record.hash) {
        cache.delete(key)
        return undefined
      }
      entry.record = current
      entry.result = { ok: true, principal: principalOf(current) }
    }
    store.touch(entry.record.id)
    return entry.result
  }

  function prune() {
    seenVersion = store.version
    for (const [key, entry] of cache) {
      if (store.lookup(entry.record.id)?.hash !== entry.record.hash) cache.delete(key)
    }
  }

  function refuse(client: string): VerifyResult | undefined {
    const gate = throttle.check(client)
    return gate.allowed ? undefined : { ok: false, code: 'auth.throttled', retryAfterS: gate.retryAfterS }
  }

  function failure(client: string, reason: string): VerifyResult {
    throttle.fail(client)
    return { ok: false, code: 'auth.invalid', reason }
  }

  async function slow(token: string, key: string, clientOf: string | (() => string)): Promise<VerifyResult> {
    try {
      await store.refresh()
    } catch {
      // refresh records its own problem; the lookup below then fails closed
    }
    const cached = fromCache(key)
    if (cached) return cached
    const client = typeof clientOf === 'string' ? clientOf : clientOf()
    const refused = refuse(client)
    if (refused) return refused
    const parsed = parseToken(token)
    if (!parsed.ok) return failure(client, MALFORMED)
    const record = store.lookup(parsed.id)
    if (!record) return failure(client, UNKNOWN)

    // The same token already being checked: wait for that hash (no new one). Otherwise this attempt
    // pays for a hash: within the client's share of the hashing capacity, and with one failure taken from
    // its budget before the hash starts.
    let pending = inflight.get(key)
    const joined = pending !== undefined
    if (!pending) {
      const running = hashesOf.get(client) ?? 0
      if (running >= perClientMax) return BUSY
      const gate = throttle.take(client)
      if (!gate.allowed) return { ok: false, code: 'auth.throttled', retryAfterS: gate.retryAfterS }
      hashesOf.set(client, running + 1)
      pending = hashGate.run(() => check(record.hash, parsed.secret).catch(() => false))
      inflight.set(key, pending)
      void pending.finally(() => {
        inflight.delete(key)
        const left = (hashesOf.get(client) ?? 1) - 1
        if (left > 0) hashesOf.set(client, left)
        else hashesOf.delete(client)
      })
    }
    const ok = await pending
    if (ok === 'busy') {
      if (!joined) throttle.refund(client)
      return BUSY
    }
    // Revoked (or replaced) while argon2 ran: the token is no longer valid.
    const current = store.lookup(parsed.id)
    if (!ok || current?.hash !== record.hash) {
      // The owner's failure was taken before hashing; one that joined counts its own now.
      return joined ? failure(client, UNKNOWN) : { ok: false, code: 'auth.invalid', reason: UNKNOWN }
    }
    if (!joined) throttle.refund(client)

    if (!cache.has(key)) {
      if (cache.size >= maxEntries) {
        const oldest = cache.keys().next()
        if (!oldest.done) cache.delete(oldest.value)
      }
      cache.set(key, { record: current, result: { ok: true, principal: principalOf(current) } })
    }
    return fromCache(key) ?? failure(client, UNKNOWN)
  }

  return {
    verify(token, client) {
      if (token.length !== TOKEN_LENGTH) {
        const key = typeof client === 'string' ? client : client()
        return refuse(key) ?? failure(key, MALFORMED)
      }
      // One-shot sha256 (no Hash object): the cache key, so no plaintext token is kept in memory.
      const key = hash('sha256', token, 'base64')
      if (!store.stale) {
        const cached = fromCache(key)
        if (cached) return cached
      }
      return slow(token, key, client)
    },
    get cacheSize() {
      return cache.size
    },
  }
}

/** Made once per verified token (and again when its record changes): the globs are compiled here. */
function principalOf(record: TokenRecord): TokenPrincipal {
  const models = record.models ? compileModelGlobs(record.models) : undefined
  return { kind: 'token', scope: record.scope, tokenId: record.id, label: record.label, models }
}

/**
 * The argon2 concurrency gate: at most `max` tasks at once, `queue` more waiting (first come, first
 * served); beyond that a task is refused with 'busy' at once, without waiting.
 */
function createHashGate(max: number, queue: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return {
    async run<T>(task: () => Promise<T>): Promise<T | 'busy'> {
      if (running >= max) {
        if (waiting.length >= queue) return 'busy'
        await new Promise<void>((resolve) => waiting.push(resolve)) // the releaser hands its turn over
      } else running++
      try {
        return await task()
      } finally {
        const next = waiting.shift()
        if (next) next()
        else running--
      }
    },
  }
}
