/**
 * A guard before `JSON.parse`: V8 parses deeply nested JSON slowly (about 1 µs per level: a body of
 * 32 MiB of `[` holds the event loop for many seconds), and each object or array costs ~0.3 µs (a
 * body of 32 MiB of `{},` holds it for seconds), so bodies that nest deeper, or hold more objects and
 * arrays, than any real request are refused first. Only bodies larger than `JSON_DEPTH_CHECK_BYTES`
 * are scanned: a smaller one cannot cost anything, and the hot path stays free of the scan.
 */
import { SvcError } from './errors'
import { jsonStringEnd } from './json-scan'

/** Deeper than this is refused (OpenAI's structured-output schemas nest a few levels; tools a few dozen). */
export const MAX_JSON_DEPTH = 256
/**
 * More objects and arrays than this in one body is refused (~30 ms of `JSON.parse`). Real requests
 * hold far fewer: 2048 token arrays (an embeddings batch), a few per chat message; numbers and
 * strings, 10 times cheaper to parse, are not counted.
 */
export const MAX_JSON_CONTAINERS = 100_000
/** Bodies up to this size are not scanned (at most ~2000 levels: parsed in well under a millisecond). */
export const JSON_DEPTH_CHECK_BYTES = 4096

// Structural characters only: the regex engine skips everything else natively.
const STRUCTURAL = /["[\]{}]/g

/**
 * Whether `text` (JSON or not) opens more than `max` arrays/objects at once, outside strings. Linear:
 * strings are skipped with `indexOf`, everything else by the regex engine.
 */
export function jsonNestsDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  return jsonTooCostly(text, max, Number.POSITIVE_INFINITY) === 'depth'
}

/**
 * Whether `text` nests deeper than `maxDepth` (`depth`) or opens more than `maxContainers` objects
 * and arrays (`containers`), outside strings; undefined when neither. Linear, like `jsonNestsDeeper`.
 */
export function jsonTooCostly(
  text: string,
  maxDepth = MAX_JSON_DEPTH,
  maxContainers = MAX_JSON_CONTAINERS,
): 'depth' | 'containers' | undefined {
  let depth = 0
  let containers = 0
  STRUCTURAL.lastIndex = 0
  for (let m = STRUCTURAL.exec(text); m !== null; m = STRUCTURAL.exec(text)) {
    const c = text.charCodeAt(m.index)
    if (c === 0x22) {
      const end = jsonStringEnd(text, m.index)
      if (end < 0) return undefined // unterminated: JSON.parse refuses it at once
      STRUCTURAL.lastIndex = end + 1
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return 'depth'
      if (++containers > maxContainers) return 'containers'
    } else {
      depth--
    }
  }
  return undefined
}

/**
 * Throws 400 `request.invalid` when a body over the size threshold nests deeper, or holds more
 * objects and arrays, than allowed.
 */
export function assertJsonDepth(text: string): void {
  if (text.length <= JSON_DEPTH_CHECK_BYTES) return
  const problem = jsonTooCostly(text)
  if (problem === 'depth') {
    throw new SvcError('request.invalid', `request body nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
  if (problem === 'containers') {
    throw new SvcError(
      'request.invalid',
      `request body holds more than ${MAX_JSON_CONTAINERS} objects and arrays`,
    )
  }
}
