import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { verifySecret } from './secret-hash'
import { createFailureThrottle } from './throttle'
import { generateToken } from './token-format'
import { createTokenStore, type TokenStore } from './token-store'
import { createTokenVerifier, type TokenVerifierOptions, type VerifyResult } from './token-verifier'

const FAST = { memoryCost: 256, timeCost: 1, parallelism: 1 }
const cleanup: (() => Promise<void>)[] = []

interface SetupOptions extends Omit<TokenVerifierOptions, 'store' | 'verifySecret'> {
  /** How long each argon2 check takes on top of its own time, so that concurrent checks overlap. */
  delayMs?: number
}

/**
 * A token store in a temp directory (removed after the test) and a verifier over it whose argon2
 * checks are the real ones, counted: `runs` in all, `peak` at once.
 */
async function setup(options: SetupOptions = {}) {
  const { delayMs = 0, ...verifierOptions } = options
  const configDir = await mkdtemp(join(tmpdir(), 'svc-verify-'))
  const store = createTokenStore({ configDir, hashParams: FAST, flushIntervalMs: 0 })
  cleanup.push(async () => {
    await store.close()
    await rm(configDir, { recursive: true, force: true })
  })
  let runs = 0
  let running = 0
  let peak = 0
  const verifier = createTokenVerifier({
    ...verifierOptions,
    store,
    verifySecret: async (phc, secret) => {
      runs++
      peak = Math.max(peak, ++running)
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
      running--
      return verifySecret(phc, secret)
    },
  })
  return { store, verifier, configDir, runs: () => runs, peak: () => peak }
}

afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()))
})

async function settle(r: VerifyResult | Promise<VerifyResult>) {
  return await r
}

/** Waits until the store's watcher has seen its own writes, so the next check can take the fast path. */
async function quiet(store: TokenStore) {
  await new Promise((r) => setTimeout(r, 30))
  await store.refresh()
}

describe('token verifier', () => {
  it('verifies a token once with argon2, then answers from the cache synchronously', async () => {
    const { store, verifier, runs } = await setup()
    const t = await store.create({ label: 'ci', scope: 'all' })
    const first = await settle(verifier.verify(t.token, 'c'))
    expect(first).toEqual({
      ok: true,
      principal: { kind: 'token', scope: 'all', tokenId: t.id, label: 'ci' },
    })
    expect(runs()).toBe(1)
    await quiet(store)
    for (let i = 0; i < 100; i++) {
      const r = verifier.verify(t.token, 'c')
      expect(r).not.toBeInstanceOf(Promise)
      expect((r as VerifyResult).ok).toBe(true)
    }
    expect(runs()).toBe(1)
    expect(verifier.cacheSize).toBe(1)
  })

  it('shares one argon2 run between concurrent first uses of a token', async () => {
    const { store, verifier, runs } = await setup()
    const t = await store.create({ label: 'x' })
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(t.token, 'c')))
    expect(results.every((r) => r.ok)).toBe(true)
    expect(runs()).toBe(1)
  })

  it('drops the cached token at once on a local revoke', async () => {
    const { store, verifier } = await setup()
    const t = await store.create({ label: 'x' })
    expect((await settle(verifier.verify(t.token, 'c'))).ok).toBe(true)
    await store.revoke(t.id)
    expect(await settle(verifier.verify(t.token, 'c'))).toMatchObject({ ok: false, code: 'auth.invalid' })
    expect(verifier.cacheSize).toBe(0)
  })

  it('drops the cached token on the next check after another process revoked it on disk', async () => {
    const { store, verifier, configDir } = await setup()
    const t = await store.create({ label: 'x' })
    expect((await settle(verifier.verify(t.token, 'c'))).ok).toBe(true)
    await quiet(store)
    const other = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
    await other.revoke(t.id)
    await expect.poll(() => store.stale).toBe(true)
    expect(await settle(verifier.verify(t.token, 'c'))).toMatchObject({ ok: false, code: 'auth.invalid' })
  })

  it('sees a token created by another process on the first check (stat on a miss)', async () => {
    const { store, verifier, configDir } = await setup()
    await store.refresh()
    const other = createTokenStore({ configDir, watch: false, flushIntervalMs: 0, hashParams: FAST })
    const t = await other.create({ label: 'x' })
    expect((await settle(verifier.verify(t.token, 'c'))).ok).toBe(true)
  })

  it('refuses a wrong secret for a known id, an unknown id and garbage, without argon2 for the latter', async () => {
    const { store, verifier, runs } = await setup()
    const t = await store.create({ label: 'x' })
    const wrong = `${t.token.slice(0, 17)}${generateToken().secret}`
    expect(await settle(verifier.verify(wrong, 'c'))).toMatchObject({ ok: false, code: 'auth.invalid' })
    expect(runs()).toBe(1)
    expect(await settle(verifier.verify(generateToken().token, 'c'))).toMatchObject({ ok: false })
    expect(await settle(verifier.verify('nope', 'c'))).toMatchObject({ ok: false, code: 'auth.invalid' })
    expect(await settle(verifier.verify('x'.repeat(16_384), 'c'))).toMatchObject({ ok: false })
    expect(runs()).toBe(1)
  })

  it('throttles a client after repeated failures, before any argon2 work, and keeps cached tokens working', async () => {
    let now = 0
    const { store, verifier, runs } = await setup({
      throttle: createFailureThrottle({ burst: 3, clock: () => now }),
    })
    const t = await store.create({ label: 'x' })
    expect((await settle(verifier.verify(t.token, 'guesser'))).ok).toBe(true)
    const wrong = `${t.token.slice(0, 17)}${generateToken().secret}`
    for (let i = 0; i < 3; i++) expect((await settle(verifier.verify(wrong, 'guesser'))).ok).toBe(false)
    const before = runs()
    expect(await settle(verifier.verify(wrong, 'guesser'))).toEqual({
      ok: false,
      code: 'auth.throttled',
      retryAfterS: 6,
    })
    expect(await settle(verifier.verify('garbage', 'guesser'))).toMatchObject({ code: 'auth.throttled' })
    expect(runs()).toBe(before)
    expect((await settle(verifier.verify(t.token, 'guesser'))).ok).toBe(true)
    expect((await settle(verifier.verify(wrong, 'someone else'))).ok).toBe(false)
    now += 6000
    expect(await settle(verifier.verify(wrong, 'guesser'))).toMatchObject({ code: 'auth.invalid' })
  })

  it('runs a bounded number of argon2 checks at once and turns the overflow away without blaming the client', async () => {
    const throttle = createFailureThrottle({ burst: 1 })
    const { store, verifier, peak } = await setup({
      throttle,
      maxConcurrentHashes: 2,
      maxQueuedHashes: 1,
      delayMs: 20,
    })
    const tokens = await Promise.all([1, 2, 3, 4].map((i) => store.create({ label: `t${i}` })))
    const results = await Promise.all(tokens.map((t, i) => verifier.verify(t.token, `client-${i}`)))
    expect(peak()).toBe(2)
    expect(results.filter((r) => r.ok)).toHaveLength(3)
    expect(results[3]).toEqual({ ok: false, code: 'auth.throttled', retryAfterS: 1 })
    expect(throttle.size).toBe(0)
    expect((await settle(verifier.verify(tokens[3]!.token, 'client-3'))).ok).toBe(true)
  })

  it('runs no more argon2 checks than the failure budget for 200 concurrent wrong secrets of one token', async () => {
    const { store, verifier, runs } = await setup({
      throttle: createFailureThrottle({ burst: 10 }),
      // No per-client cap here: only the failure budget may bound the hashes.
      maxHashesPerClient: 1_000,
      delayMs: 5,
    })
    const t = await store.create({ label: 'x' })
    const guesses = Array.from({ length: 200 }, () => `${t.token.slice(0, 17)}${generateToken().secret}`)
    const results = await Promise.all(guesses.map((g) => verifier.verify(g, 'attacker')))
    expect(runs()).toBe(10)
    expect(results.every((r) => !r.ok)).toBe(true)
    expect(results.filter((r) => !r.ok && r.code === 'auth.invalid')).toHaveLength(10)
  })

  it('keeps a few guessing clients from taking every turn at hashing from a valid first use', async () => {
    const { store, verifier, runs } = await setup({ delayMs: 5 })
    const [target, mine] = await Promise.all([store.create({ label: 'x' }), store.create({ label: 'mine' })])
    const attacks = Array.from({ length: 10 }, (_, c) =>
      Array.from({ length: 20 }, () =>
        verifier.verify(`${target.token.slice(0, 17)}${generateToken().secret}`, `attacker-${c}`),
      ),
    ).flat()
    const valid = verifier.verify(mine.token, 'someone')
    expect(await valid).toMatchObject({ ok: true })
    const results = await Promise.all(attacks)
    // Each attacker got at most two hashes (the rest: try again in a second, not counted).
    expect(runs()).toBeLessThanOrEqual(10 * 2 + 1)
    expect(results.filter((r) => !r.ok && r.code === 'auth.throttled')).toHaveLength(200 - (runs() - 1))
  })

  it('keeps the last good tokens in force when the file breaks (cached or not)', async () => {
    const { store, verifier } = await setup()
    const t = await store.create({ label: 'x' })
    const spare = await store.create({ label: 'y' })
    expect((await settle(verifier.verify(t.token, 'c'))).ok).toBe(true)
    await writeFile(store.path, `${await readFile(store.path, 'utf8')}\n[oops`)
    await expect.poll(() => store.stale).toBe(true)
    expect((await settle(verifier.verify(t.token, 'c'))).ok).toBe(true)
    expect((await settle(verifier.verify(spare.token, 'c'))).ok).toBe(true)
    expect(store.problem).toMatch(/not valid TOML/)
  })

  it('records use without writing the file', async () => {
    const { store, verifier } = await setup()
    const t = await store.create({ label: 'x' })
    const before = await readFile(store.path, 'utf8')
    for (let i = 0; i < 50; i++) await settle(verifier.verify(t.token, 'c'))
    expect(await readFile(store.path, 'utf8')).toBe(before)
    expect((await store.list())[0]?.last_used_at).not.toBeNull()
  })
})
