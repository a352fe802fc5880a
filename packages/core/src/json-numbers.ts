/**
 * `JSON.parse` with control over number literals. JavaScript numbers lose integers above 2^53
 * (ComfyUI seeds go to 2^64 − 1) and cannot tell `1.0` from `1`; this parses JSON text while letting
 * `revive` decide, from the literal's exact text, what each number becomes. Pure and runtime-neutral.
 */

import { isIntegerLiteral, scanJson } from './json-scan'

export interface NumberLiteral {
  /** The literal exactly as written (`18446744073709551615`, `1.0`, `2e3`). */
  text: string
  /** No fraction and no exponent. */
  integer: boolean
}

/**
 * Parses JSON `text`; every number literal outside strings is handed to `revive` (its return value
 * replaces the number), or kept as `JSON.parse` makes it when `revive` returns `undefined`.
 * Throws `SyntaxError` on invalid JSON, like `JSON.parse`.
 */
export function parseJsonNumbers(text: string, revive: (literal: NumberLiteral) => unknown): unknown {
  // Marked literals travel as strings; U+0000 cannot appear raw in JSON text, and the random part
  // keeps a client's own "\u0000…" string from ever matching.
  const tag = `\u0000n:${globalThis.crypto.randomUUID()}:`
  let out = ''
  let last = 0
  scanJson(text, {
    number(start, end) {
      const literal = text.slice(start, end)
      out += `${text.slice(last, start)}"\\u0000n:${tag.slice(3)}${isIntegerLiteral(literal) ? 'i' : 'f'}${literal}"`
      last = end
    },
  })
  out += text.slice(last)
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(tag)) return value
    const literal = { text: value.slice(tag.length + 1), integer: value[tag.length] === 'i' }
    const revived = revive(literal)
    return revived === undefined ? Number(literal.text) : revived
  })
}
