/**
 * JSON with integers beyond 2^53. ComfyUI seeds go up to 2^64−1 (18446744073709551615); `JSON.parse`
 * rounds that to 18446744073709552000, and `JSON.stringify` refuses a `bigint`. These two helpers keep
 * such integers exact as `bigint` both ways.
 */
import { randomUUID } from 'node:crypto'
import { parseJsonNumbers } from '@svc/core'

/**
 * `JSON.parse`, except that an integer literal outside the safe range becomes a `bigint` (floats and
 * safe integers stay numbers). Throws `SyntaxError` like `JSON.parse`.
 */
export function parseJsonBig(text: string): unknown {
  return parseJsonNumbers(text, (n) =>
    n.integer && !Number.isSafeInteger(Number(n.text)) ? BigInt(n.text) : undefined,
  )
}

/** `JSON.stringify`, writing a `bigint` as a bare integer literal. */
export function stringifyJsonBig(value: unknown): string {
  const tag = `\u0000big:${randomUUID()}:`
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${tag}${v}` : v))
  // JSON.stringify escapes U+0000 as \u0000, so the marker cannot collide with a real string
  return text.replace(new RegExp(`"\\\\u0000big:${tag.slice(5)}(-?\\d+)"`, 'g'), '$1')
}
