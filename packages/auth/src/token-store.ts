/**
 * The token store: `<config>/tokens.toml`, shared by the API and the CLI.
 *
 * - Every change is a read-modify-write under `withFileLock` (the lock every writer of the file
 *   takes) and lands with `writeFileAtomic` (mode 0600), so concurrent changes from several
 *   processes are never lost and readers never see half a file. An existing file keeps its owner,
 *   group and mode whoever writes it (root's CLI writing the svc user's file); one that cannot be
 *   read or replaced answers 409 `config.invalid` naming its owner and mode, never a 500.
 * - Memory follows the file: the config directory is watched (`fs.watch`), and an event for
 *   `tokens.toml` marks the store stale synchronously; whoever reads next (`refresh`) stats the file
 *   and re-reads it when its identity (inode, size, mtime, ctime) changed. Without a working watcher
 *   the store is always stale, so every check stats the file: slower, never wrong.
 * - A broken (or unreadable) file is reported (`problem`, `onProblem`) and memory keeps the last good
 *   tokens, so one bad edit does not lock every program out (nor let anyone in). Changes are refused
 *   with 409 `config.invalid` until it is fixed, so a broken file is never overwritten. A file that
 *   was never good (broken at first read) holds no tokens; the API refuses to start on it
 *   (`checkTokensFile`).
 * - `touch` records use in memory; `flush` writes `last_used_at` in one batch (every
 *   `flushIntervalMs` and on `close`), never per request.
 */
import { type FSWatcher, mkdirSync, watch } from 'node:fs'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { withFileLock, writeFileAtomic } from '@svc/core/node'
import * as v from 'valibot'
import { accessError, describeAccess } from './file-access'
import { readSnapshot, signatureOf, statOrNull } from './file-snapshot'
import { QuotaLimitsSchema } from './quota'
import { ARGON2_PARAMS, hashSecret } from './secret-hash'
import { generateToken, generateTokenId, TOKEN_PREFIX } from './token-format'
import { CreateTokenInputSchema, limitsField, modelsField, valid } from './token-input'
import type { TokenInfo, TokenStore, TokenStoreOptions } from './token-store-types'
import { parseTokensFile, serializeTokensFile, type TokenRecord } from './tokens-file'

export const TOKENS_FILE = 'tokens.toml'

export type { CreatedToken, TokenInfo, TokenStore, TokenStoreOptions } from './token-store-types'

/** Opens the store (no I/O until first use, except creating the config dir for the watcher). */
export function createTokenStore(options: TokenStoreOptions): TokenStore {
  const { configDir, onProblem } = options
  const path = join(configDir, TOKENS_FILE)
  const clock = options.clock ?? Date.now
  const hashParams = options.hashParams ?? ARGON2_PARAMS
  const lockTimeoutMs = options.lockTimeoutMs ?? 30_000

  let records = new Map<string, TokenRecord>()
  let signature: string | null = null
  let problem: string | null = null
  let loaded = false
  let dirty = true
  // Every watch event bumps the epoch; a read clears `dirty` only if no event came in meanwhile.
  let epoch = 0
  // Reads and changes apply in the order they observed the file; an older read never wins.
  let seq = 0
  let appliedSeq = 0
  let inflight: { epoch: number; promise: Promise<void> } | null = null
  let mutations: Promise<unknown> = Promise.resolve()
  const pending = new Map<string, number>()
  let closed = false

  let watcher: FSWatcher | null = null
  if (options.watch ?? true) watcher = startWatch()
  const interval = options.flushIntervalMs ?? 30_000
  const timer =
    interval > 0
      ? setInterval(() => void flush().catch((e) => onProblem?.(`flush failed: ${message(e)}`)), interval)
      : null
  timer?.unref()

  function startWatch(): FSWatcher | null {
    try {
      mkdirSync(configDir, { recursive: true })
      const w = watch(configDir, { persistent: false }, (_event, filename) => {
        if (filename === null || filename === TOKENS_FILE) {
          epoch++
          dirty = true
        }
      })
      w.on('error', () => {
        w.close()
        if (watcher === w) watcher = null
      })
      return w
    } catch {
      return null
    }
  }

  /** Takes a state of the file; `list` null means "broken": the last good records stay. */
  function apply(mySeq: number, list: TokenRecord[] | null, sig: string | null, trouble: string | null) {
    if (mySeq <= appliedSeq) return
    appliedSeq = mySeq
    if (list !== null) records = new Map(list.map((r) => [r.id, r]))
    signature = sig
    if (trouble !== null && trouble !== problem) onProblem?.(trouble)
    problem = trouble
    loaded = true
  }

  async function load(): Promise<void> {
    const myEpoch = epoch
    const mySeq = ++seq
    try {
      const st = await statOrNull(path)
      if (st === null) {
        apply(mySeq, [], null, null)
      } else if (signatureOf(st) !== signature || !loaded) {
        const read = await readSnapshot(path)
        if (read === null) apply(mySeq, [], null, null)
        else {
          const parsed = parseTokensFile(read.text, path)
          apply(mySeq, parsed.ok ? parsed.records : null, read.signature, parsed.ok ? null : parsed.error)
        }
      }
    } catch (error) {
      // Unreadable (permissions, I/O): the last good tokens stay until a later read succeeds.
      const access = await describeAccess(path)
      apply(
        mySeq,
        null,
        null,
        `cannot read ${path} (${access}): ${message(error)}; every token is refused until it is`,
      )
    }
    if (epoch === myEpoch) dirty = false
  }

  function refresh(): Promise<void> {
    if (inflight && inflight.epoch === epoch) return inflight.promise
    const mine = { epoch, promise: load() }
    inflight = mine
    void mine.promise.then(
      () => {
        if (inflight === mine) inflight = null
      },
      () => {
        if (inflight === mine) inflight = null
      },
    )
    return mine.promise
  }

  /** One read-modify-write under the lock; `change` returns null to leave the file as it is. */
  function mutate<T>(change: (current: TokenRecord[]) => { next: TokenRecord[] | null; result: T }) {
    const run = async (): Promise<T> =>
      withFileLock(
        path,
        async () => {
          const read = await readSnapshot(path).catch(async (e) => {
            throw await accessError(path, 'read', e)
          })
          let current: TokenRecord[] = []
          if (read !== null) {
            const parsed = parseTokensFile(read.text, path)
            if (!parsed.ok) {
              throw new SvcError('config.invalid', `${parsed.error}; fix or remove it before changing tokens`)
            }
            current = parsed.records
          }
          const { next, result } = change(current)
          if (next !== null) {
            // An existing file keeps its owner, group and mode (the API's user, whoever writes).
            const owner = options.newFileOwner ? { owner: options.newFileOwner } : {}
            await writeFileAtomic(path, serializeTokensFile(next), {
              mode: 0o600,
              keepOwner: true,
              keepMode: true,
              ...owner,
            }).catch(async (e) => {
              throw await accessError(path, 'replace', e)
            })
          }
          const st = next !== null ? await statOrNull(path) : null
          // Taken after the write: any read that started earlier may have seen the old file.
          apply(
            ++seq,
            next ?? current,
            next !== null ? st && signatureOf(st) : (read?.signature ?? null),
            null,
          )
          return result
        },
        { timeoutMs: lockTimeoutMs },
      )
    // One change at a time per process: the lock is then contended only between processes.
    const result = mutations.then(run, run)
    mutations = result.catch(() => {})
    return result
  }

  async function flush(): Promise<void> {
    if (pending.size === 0) return
    const batch = new Map(pending)
    await mutate((current) => {
      let changed = false
      const next = current.map((r) => {
        const used = batch.get(r.id)
        if (used === undefined || (r.last_used_at && Date.parse(r.last_used_at) >= used)) return r
        changed = true
        return { ...r, last_used_at: new Date(used).toISOString() }
      })
      return { next: changed ? next : null, result: undefined }
    })
    for (const [id, at] of batch) if (pending.get(id) === at) pending.delete(id)
  }

  function info(r: TokenRecord): TokenInfo {
    const used = pending.get(r.id)
    const fileUsed = r.last_used_at ? Date.parse(r.last_used_at) : 0
    const last = used !== undefined && used > fileUsed ? new Date(used).toISOString() : r.last_used_at
    const { id, label, scope, created_at } = r
    const models = r.models ?? null
    return { id, label, scope, created_at, last_used_at: last ?? null, limits: r.limits ?? null, models }
  }

  return {
    path,
    get stale() {
      return dirty || watcher === null
    },
    get version() {
      return appliedSeq
    },
    get problem() {
      return problem
    },
    lookup: (id) => records.get(id),
    refresh,
    async create(input) {
      const { label, scope, limits, models } = valid(CreateTokenInputSchema, input)
      const { secret } = generateToken()
      // Hashed before taking the lock: argon2 is the slow part and needs no file.
      const hash = await hashSecret(secret, hashParams)
      const created_at = new Date(clock()).toISOString()
      const record = await mutate((current) => {
        let id = generateTokenId()
        while (current.some((r) => r.id === id)) id = generateTokenId()
        const rec: TokenRecord = {
          ...{ id, label, scope, created_at, hash },
          ...limitsField(limits),
          ...modelsField(models),
        }
        return { next: [...current, rec], result: rec }
      })
      return { ...info(record), token: `${TOKEN_PREFIX}${record.id}.${secret}` }
    },
    async list() {
      await mutations.catch(() => {})
      const read = await readSnapshot(path)
      if (read === null) return []
      const parsed = parseTokensFile(read.text, path)
      if (parsed.ok) return parsed.records.map(info)
      // Broken: what is in force is the last good state (`problem` says why).
      await refresh()
      return [...records.values()].map(info)
    },
    async revoke(id) {
      const removed = await mutate((current) => {
        const next = current.filter((r) => r.id !== id)
        return next.length === current.length ? { next: null, result: false } : { next, result: true }
      })
      pending.delete(id)
      return removed
    },
    async setLimits(id, limits) {
      const field = limitsField(valid(v.nullable(QuotaLimitsSchema), limits, 'limits'))
      const changed = await mutate((current) => {
        const at = current.findIndex((r) => r.id === id)
        if (at < 0) return { next: null, result: undefined }
        const { limits: _old, ...rest } = current[at]!
        const next = current.with(at, { ...rest, ...field })
        return { next, result: next[at] }
      })
      return changed && info(changed)
    },
    touch(id) {
      pending.set(id, clock())
    },
    flush,
    async close() {
      if (closed) return
      closed = true
      if (timer) clearInterval(timer)
      watcher?.close()
      watcher = null
      try {
        await flush()
      } catch (error) {
        onProblem?.(`last use not saved: ${message(error)}`)
      }
    },
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
