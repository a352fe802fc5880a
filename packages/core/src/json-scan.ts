/**
 * The one lexer under `parseJsonNumbers` and `numberLiteralsAt`: a single left-to-right pass over
 * JSON text that tells string literals and number literals from everything else (digits inside a
 * string are text; a `-` or a digit outside one starts a number). Linear, allocation-free.
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

/**
 * Where the JSON string literal whose opening quote is at `at` ends: the index of its closing quote,
 * or -1 when it does not close. It jumps from quote to quote with `indexOf` and counts the
 * backslashes before each, so a long string costs no step per character. `text` may be UTF-8 bytes
 * read as latin1: its indexes are then byte offsets.
 */
export function jsonStringEnd(text: string, at: number): number {
  let i = at
  for (;;) {
    i = text.indexOf('"', i + 1)
    if (i < 0) return -1
    let k = i - 1
    while (text.charCodeAt(k) === 0x5c) k--
    if ((i - 1 - k) % 2 === 0) return i // an even number of backslashes before it: it closes
  }
}

/** What `scanJson` reports, in text order. Spans are `[start, end)` offsets into the text. */
export interface JsonScanVisitor {
  /** A string literal, quotes included; `escaped`: it holds a backslash escape. */
  string?(start: number, end: number, escaped: boolean): void
  /** A number literal outside any string. */
  number(start: number, end: number): void
  /** Any other character (structure, white space, the letters of `true`/`false`/`null`), by code. */
  other?(code: number): void
}

/**
 * Walks `text` once, reporting each string literal, each number literal and each other character to
 * `visit`. `text` should be valid JSON; on anything else the reports are unspecified but the pass
 * stays linear (an unterminated string runs to the end).
 */
export function scanJson(text: string, visit: JsonScanVisitor): void {
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const start = i++
      let escaped = false
      while (i < n && text.charCodeAt(i) !== 0x22) {
        if (text.charCodeAt(i) === 0x5c) {
          escaped = true
          i += 2
        } else i++
      }
      i++
      visit.string?.(start, i, escaped)
      continue
    }
    const end = c === 0x2d || (c >= 0x30 && c <= 0x39) ? numberLiteralEnd(text, i) : -1
    if (end < 0) {
      visit.other?.(c)
      i++
    } else {
      visit.number(i, end)
      i = end
    }
  }
}
