/**
 * argon2id hashing of token secrets (`@node-rs/argon2`, which runs on libuv's thread pool, so a hash
 * never blocks the event loop). Only the PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) is ever
 * stored.
 *
 * The native addon is loaded on the first hash or verify, not when this module is imported: the chat
 * server imports @svc/auth and never hashes, and an idle API verifies nothing (verified tokens are
 * cached), so neither keeps the addon resident for nothing.
 */
import { createRequire } from 'node:module'
import type { Algorithm } from '@node-rs/argon2'

type Argon2 = typeof import('@node-rs/argon2')
let argon2: Argon2 | undefined
const loadArgon2 = (): Argon2 => {
  argon2 ??= createRequire(import.meta.url)('@node-rs/argon2') as Argon2
  return argon2
}

// `Algorithm` is an ambient const enum, which isolatedModules cannot read: Argon2id = 2.
const ARGON2ID = 2 as Algorithm

export interface HashParams {
  /** KiB of memory. */
  memoryCost: number
  timeCost: number
  parallelism: number
}

/**
 * Production cost: OWASP's minimum for argon2id (m=19 MiB, t=2, p=1). About 15–50 ms per hash,
 * which is why verified tokens are cached. Lower costs are for tests that do not check the cost.
 */
export const ARGON2_PARAMS: Readonly<HashParams> = { memoryCost: 19456, timeCost: 2, parallelism: 1 }

/** Hashes a secret with argon2id and a fresh random salt. */
export function hashSecret(secret: string, params: HashParams = ARGON2_PARAMS): Promise<string> {
  return loadArgon2().hash(secret, { ...params, algorithm: ARGON2ID })
}

/**
 * Whether `secret` matches the stored PHC string. The parameters come from the string itself. A
 * malformed or non-argon2id string is `false`, never an exception.
 */
export async function verifySecret(phc: string, secret: string): Promise<boolean> {
  if (!phc.startsWith('$argon2id$')) return false
  // Outside the try: an addon that cannot load is an error to see, not a wrong secret.
  const { verify } = loadArgon2()
  try {
    return await verify(phc, secret)
  } catch {
    return false
  }
}
