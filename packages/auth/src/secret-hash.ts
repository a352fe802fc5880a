/**
 * argon2id hashing of token secrets (`@node-rs/argon2`, which runs on libuv's thread pool, so a hash
 * never blocks the event loop). Only the PHC string (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`) is ever
 * stored.
 */
import { type Algorithm, hash, verify } from '@node-rs/argon2'

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
  return hash(secret, { ...params, algorithm: ARGON2ID })
}

/**
 * Whether `secret` matches the stored PHC string. The parameters come from the string itself. A
 * malformed or non-argon2id string is `false`, never an exception.
 */
export async function verifySecret(phc: string, secret: string): Promise<boolean> {
  if (!phc.startsWith('$argon2id$')) return false
  try {
    return await verify(phc, secret)
  } catch {
    return false
  }
}
