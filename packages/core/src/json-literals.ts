/**
 * The exact text of a few number literals in a JSON document, found without parsing it again.
 *
 * `JSON.parse` rounds integers above 2^53 (image seeds go to 2^64 − 1). When a caller already has the
 * parsed value and needs only one or two fields exactly, this finds their literals in the raw text in
 * one linear pass: no per-number work beyond skipping it, object keys compared only at the depths the
 * wanted paths reach, and nothing copied but the wanted literals (cut at `maxLength`), so a hostile
 * body — millions of numbers, a number of ten million digits — costs what reading it costs.
 */

import { isIntegerLiteral, scanJson } from './json-scan'

export interface LiteralAt {
  /** The literal as written, cut to `maxLength` characters when `truncated`. */
  text: string
  /** No fraction and no exponent. */
  integer: boolean
  truncated: boolean
}

/** An escaped key is decoded only when it could spell a wanted name (`\uXXXX` is 6 characters). */
const ESCAPE_FACTOR = 6

/**
 * For each path (object keys from the top, e.g. `['seed']`, `['extra_body', 'seed']`), the number
 * literal at it in `text`; the last one when a key repeats, as `JSON.parse` keeps the last. Paths
 * whose value is not a number are absent. `text` should be valid JSON (callers parse it first);
 * on anything else the answer is unspecified but the pass stays linear.
 */
export function numberLiteralsAt(
  text: string,
  paths: readonly (readonly string[])[],
  options: { maxLength: number },
): Map<readonly string[], LiteralAt> {
  const found = new Map<readonly string[], LiteralAt>()
  const maxDepth = Math.max(0, ...paths.map((p) => p.length))
  const wantedKey = keyMatcher(text, paths)
  // Per open container: whether it is an object, and the wanted key its current value is under.
  const isObject: boolean[] = []
  const keys: (string | undefined)[] = []
  let expectKey = false
  scanJson(text, {
    string(start, end, escaped) {
      if (!expectKey) return
      expectKey = false
      const depth = isObject.length
      keys[depth - 1] = depth <= maxDepth ? wantedKey(start, end, escaped, depth - 1) : undefined
    },
    other(c) {
      if (c === 0x7b || c === 0x5b) {
        isObject.push(c === 0x7b)
        keys.push(undefined)
        expectKey = c === 0x7b
      } else if (c === 0x7d || c === 0x5d) {
        isObject.pop()
        keys.pop()
      } else if (c === 0x2c) {
        expectKey = isObject.at(-1) === true
      }
    },
    number(start, end) {
      const path = isObject.length <= maxDepth ? pathAt(paths, isObject, keys) : undefined
      if (!path) return
      const truncated = end - start > options.maxLength
      found.set(path, {
        text: text.slice(start, truncated ? start + options.maxLength : end),
        integer: isIntegerLiteral(text.slice(start, end)),
        truncated,
      })
    },
  })
  return found
}

/**
 * For `text` and the wanted `paths`: the function that answers which wanted key (at `level`) the
 * string literal `text[start, end)` spells, if any (`escaped`: it holds a backslash escape).
 */
function keyMatcher(
  text: string,
  paths: readonly (readonly string[])[],
): (start: number, end: number, escaped: boolean, level: number) => string | undefined {
  const longest = Math.max(0, ...paths.flat().map((k) => k.length))
  return (start, end, escaped, level) => {
    const length = end - start - 2
    if (length > (escaped ? longest * ESCAPE_FACTOR : longest)) return undefined
    const key = escaped ? decode(text.slice(start, end)) : undefined
    for (const path of paths) {
      const name = path[level]
      if (name === undefined) continue
      if (key !== undefined ? key === name : length === name.length && text.startsWith(name, start + 1)) {
        return name
      }
    }
    return undefined
  }
}

function decode(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string
  } catch {
    return undefined
  }
}

/** The wanted path that the open containers spell exactly (objects all the way down), if any. */
function pathAt(
  paths: readonly (readonly string[])[],
  isObject: boolean[],
  keys: (string | undefined)[],
): readonly string[] | undefined {
  const depth = isObject.length
  for (let d = 0; d < depth; d++) if (!isObject[d] || keys[d] === undefined) return undefined
  return paths.find((p) => p.length === depth && p.every((k, d) => keys[d] === k))
}
