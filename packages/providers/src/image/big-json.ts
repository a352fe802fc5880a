/**
 * JSON with integers beyond 2^53. ComfyUI seeds go up to 2^64−1 (18446744073709551615); `JSON.parse`
 * rounds that to 18446744073709552000, and `JSON.stringify` refuses a `bigint`. These two helpers keep
 * such integers exact as `bigint` both ways.
 */
import { randomUUID } from 'node:crypto'

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y

/**
 * `JSON.parse`, except that an integer literal outside the safe range becomes a `bigint` (floats and
 * safe integers stay numbers). For bodies whose big integers matter: an app can parse
 * `/v1/images/generations` with it so that `"seed": 18446744073709551615` reaches the translator exact.
 * Throws `SyntaxError` like `JSON.parse`.
 */
export function parseJsonBig(text: string): unknown {
  const tag = `\u0000big:${randomUUID()}:`
  let out = ''
  let last = 0
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i++
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1
      i++
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i
      const m = NUMBER.exec(text)
      if (!m) {
        i++
        continue
      }
      const isInteger = m[1] === undefined && m[2] === undefined
      if (isInteger && !Number.isSafeInteger(Number(m[0]))) {
        out += `${text.slice(last, i)}"\\u0000big:${tag.slice(5)}${m[0]}"`
        last = i + m[0].length
      }
      i += m[0].length
    } else i++
  }
  out += text.slice(last)
  return JSON.parse(out, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(tag) ? BigInt(value.slice(tag.length)) : value,
  )
}

/** `JSON.stringify`, writing a `bigint` as a bare integer literal. */
export function stringifyJsonBig(value: unknown): string {
  const tag = `\u0000big:${randomUUID()}:`
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${tag}${v}` : v))
  // JSON.stringify escapes U+0000 as \u0000, so the marker cannot collide with a real string
  return text.replace(new RegExp(`"\\\\u0000big:${tag.slice(5)}(-?\\d+)"`, 'g'), '$1')
}
