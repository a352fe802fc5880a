/**
 * `JSON.parse` with control over number literals. JavaScript numbers lose integers above 2^53
 * (ComfyUI seeds go to 2^64 − 1) and cannot tell `1.0` from `1`; this parses JSON text while letting
 * `revive` decide, from the literal's exact text, what each number becomes. Pure and runtime-neutral.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y

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
  let i = 0
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string literal: digits inside it are text
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
      out += `${text.slice(last, i)}"\\u0000n:${tag.slice(3)}${m[1] === undefined && m[2] === undefined ? 'i' : 'f'}${m[0]}"`
      i += m[0].length
      last = i
    } else i++
  }
  out += text.slice(last)
  return JSON.parse(out, (_key, value: unknown) => {
    if (typeof value !== 'string' || !value.startsWith(tag)) return value
    const literal = { text: value.slice(tag.length + 1), integer: value[tag.length] === 'i' }
    const revived = revive(literal)
    return revived === undefined ? Number(literal.text) : revived
  })
}
