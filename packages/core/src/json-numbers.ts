/**
 * `JSON.parse` with control over number literals. JavaScript numbers lose integers above 2^53
 * (ComfyUI seeds go to 2^64 − 1) and cannot tell `1.0` from `1`; this parses JSON text while letting
 * `revive` decide, from the literal's exact text, what each number becomes. Pure and runtime-neutral.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** Where the JSON number literal that starts at `i` ends (exclusive); -1 when none starts there. */
export function numberLiteralEnd(text: string, i: number): number {
  NUMBER.lastIndex = i
  return NUMBER.test(text) ? NUMBER.lastIndex : -1
}

/** Whether a JSON number literal is an integer: no fraction, no exponent. */
export function isIntegerLiteral(literal: string): boolean {
  return !/[.eE]/.test(literal)
}

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
      const end = numberLiteralEnd(text, i)
      if (end < 0) {
        i++
        continue
      }
      const literal = text.slice(i, end)
      out += `${text.slice(last, i)}"\\u0000n:${tag.slice(3)}${isIntegerLiteral(literal) ? 'i' : 'f'}${literal}"`
      i = end
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
