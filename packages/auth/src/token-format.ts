/**
 * The token format (docs/auth.md#tokens-and-scopes): `svc_<id>.<secret>`.
 *
 * - `<id>`: 12 characters of `[A-Za-z0-9]` (~71 bits, random). It indexes `tokens.toml`, is shown in
 *   listings and is not a secret. Alphanumeric only, so it never starts with `-` (a CLI flag), never
 *   contains the `.` separator and needs no escaping in a URL.
 * - `<secret>`: 43 characters of base64url without padding, the encoding of exactly 32 random bytes.
 *
 * Parsing is strict and total: anything else, including a non-canonical base64url secret whose
 * unused low bits are set, is an `auth.invalid` value; it never throws and never echoes the input.
 */
import { randomBytes } from 'node:crypto'

export const TOKEN_PREFIX = 'svc_'
export const TOKEN_ID_LENGTH = 12
export const TOKEN_SECRET_LENGTH = 43
/** The length of every well-formed token: `svc_` + id + `.` + secret. */
export const TOKEN_LENGTH = TOKEN_PREFIX.length + TOKEN_ID_LENGTH + 1 + TOKEN_SECRET_LENGTH

/** A token id as it appears in `tokens.toml`, URLs and the CLI. */
export const TOKEN_ID_PATTERN = /^[A-Za-z0-9]{12}$/
// The 43rd character carries 2 bits of the last byte and 4 unused bits that must be 0.
const TOKEN_PATTERN = /^svc_([A-Za-z0-9]{12})\.([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export interface GeneratedToken {
  id: string
  secret: string
  /** The whole bearer token, `svc_<id>.<secret>`: shown once, never stored. */
  token: string
}

export type ParsedToken =
  | { ok: true; id: string; secret: string }
  | { ok: false; code: 'auth.invalid'; reason: string }

/** A new random token id (rejection sampling, so every character is equally likely). */
export function generateTokenId(): string {
  let id = ''
  while (id.length < TOKEN_ID_LENGTH) {
    for (const byte of randomBytes(16)) {
      // 248 = 4 × 62: bytes at or above it would make the first characters more likely.
      if (byte < 248 && id.length < TOKEN_ID_LENGTH) id += ID_ALPHABET[byte % 62]
    }
  }
  return id
}

/** A new token with a fresh id and 32 random bytes of secret. */
export function generateToken(id: string = generateTokenId()): GeneratedToken {
  if (!TOKEN_ID_PATTERN.test(id)) throw new Error('token id must be 12 characters of [A-Za-z0-9]')
  const secret = randomBytes(32).toString('base64url')
  return { id, secret, token: `${TOKEN_PREFIX}${id}.${secret}` }
}

/** Splits a bearer token into id and secret; malformed input is an `auth.invalid` value. */
export function parseToken(text: string): ParsedToken {
  if (typeof text !== 'string' || text.length !== TOKEN_LENGTH) {
    return invalid('a svc token is svc_<12 character id>.<43 character secret>')
  }
  const m = TOKEN_PATTERN.exec(text)
  if (!m) return invalid('a svc token is svc_<12 character id>.<43 character secret>')
  return { ok: true, id: m[1]!, secret: m[2]! }
}

function invalid(reason: string): ParsedToken {
  return { ok: false, code: 'auth.invalid', reason }
}
