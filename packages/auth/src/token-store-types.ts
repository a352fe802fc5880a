/** The token store's contract (`createTokenStore` in token-store.ts implements it). */
import type { Scope } from './policy'
import type { QuotaLimits } from './quota'
import type { HashParams } from './secret-hash'
import type { TokenRecord } from './tokens-file'

export interface TokenStoreOptions {
  /** The config dir; the file is `<configDir>/tokens.toml`. */
  configDir: string
  clock?: () => number
  /** argon2id cost for new hashes. Default `ARGON2_PARAMS`; lower only in tests. */
  hashParams?: HashParams
  /** Watch the directory so changes by other processes apply at once. Default true. */
  watch?: boolean
  /** How often `last_used_at` is written. Default 30 s; 0 disables the timer (`flush`/`close` still write). */
  flushIntervalMs?: number
  /** How long a change waits for the file lock. Default 30 s. */
  lockTimeoutMs?: number
  /**
   * Owner of a tokens.toml this store creates (an existing one keeps its owner, group and mode
   * whoever writes it). Default: whoever runs. The CLI, as root on an installed box, passes the
   * service user's, so the API can read and replace what root made.
   */
  newFileOwner?: { uid: number; gid: number }
  /** Called when the file cannot be read or a background flush fails. The message holds no secret. */
  onProblem?: (message: string) => void
}

/** A token as listed: everything but the hash. */
export interface TokenInfo {
  id: string
  label: string
  scope: Scope
  created_at: string
  last_used_at: string | null
  /** Its quotas, or null when it is not limited. */
  limits: QuotaLimits | null
  /** The models it may use (globs: `qwen3-8b*`), or null for every model. */
  models: string[] | null
}

/** A token just created: the only time the whole token exists outside its holder. */
export interface CreatedToken extends TokenInfo {
  token: string
}

export interface TokenStore {
  readonly path: string
  /** True when memory may be behind the file; `refresh()` before trusting `lookup`. Synchronous. */
  readonly stale: boolean
  /** Grows whenever memory takes a new state of the file (for caches built on `lookup`). */
  readonly version: number
  /** Why the file is unusable (then the last good tokens stay in force), or null. */
  readonly problem: string | null
  /** The record in memory for `id` (synchronous; no I/O). */
  lookup(id: string): TokenRecord | undefined
  /** Stats the file and re-reads it when it changed. Concurrent calls share one read. */
  refresh(): Promise<void>
  /**
   * Creates a token. `models`: globs over the model names it may send (null, absent or empty: every
   * model). Throws `SvcError('request.invalid')` for a bad label, scope, limit or glob.
   */
  create(input: {
    label: string
    scope?: Scope
    limits?: QuotaLimits | null
    models?: readonly string[] | null
  }): Promise<CreatedToken>
  /**
   * Replaces a token's quotas (`null` or `{}`: no limits). Resolves with the token as listed, or
   * undefined when no token has that id. Throws `SvcError('request.invalid')` for bad limits.
   */
  setLimits(id: string, limits: QuotaLimits | null): Promise<TokenInfo | undefined>
  /**
   * Every token, read fresh from the file, with `last_used_at` including unflushed use. While the
   * file is broken: the last good tokens (the ones in force; see `problem`).
   */
  list(): Promise<TokenInfo[]>
  /** Removes a token at once; false when no token has that id. Idempotent. */
  revoke(id: string): Promise<boolean>
  /** Notes a use of `id` now (memory only). */
  touch(id: string): void
  /** Writes pending `last_used_at` values in one change. */
  flush(): Promise<void>
  /** Stops the watcher and the timer, then flushes (a failure goes to `onProblem`). Idempotent. */
  close(): Promise<void>
}
