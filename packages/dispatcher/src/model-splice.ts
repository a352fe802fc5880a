/**
 * The client's JSON body with another top-level `model` value, its bytes spliced instead of the whole
 * body serialised again: a remote slot or a hosted upstream calls the model by its own name, and a
 * chat with an image in it is megabytes that `JSON.stringify` would walk and copy on every request.
 *
 * The scan works on the bytes (every JSON structural character is ASCII, and no byte of a multi-byte
 * UTF-8 character is), skips strings with `indexOf`, and tells a key from a value by the `:` after
 * it. It gives up (undefined: the caller serialises the parsed body) unless exactly one top-level key
 * is `model` (escapes decoded) and its value is a string: with two, `JSON.parse` took the last, and
 * an engine might take the first.
 */
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  LINE_FEED,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  SPACE,
  TAB,
} from './json-chars'

/** `raw` (a JSON object) with its top-level `model` set to `model`; undefined when that cannot be spliced. */
export function spliceModel(raw: Buffer, model: string): Buffer | undefined {
  let depth = 0
  let start = -1
  let end = -1
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === QUOTE) {
      const close = stringEnd(raw, i)
      if (close < 0) return undefined
      if (depth === 1) {
        const colon = skipSpace(raw, close + 1)
        if (raw[colon] === COLON && isModelKey(raw, i, close)) {
          if (start >= 0) return undefined
          start = skipSpace(raw, colon + 1)
          if (raw[start] !== QUOTE) return undefined
          end = stringEnd(raw, start) + 1
          if (end <= 0) return undefined
          i = end - 1
          continue
        }
      }
      i = close
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--
  }
  if (start < 0) return undefined
  const value = JSON.stringify(model)
  const size = Buffer.byteLength(value)
  const out = Buffer.allocUnsafe(raw.length - (end - start) + size)
  raw.copy(out, 0, 0, start)
  out.write(value, start)
  raw.copy(out, start + size, end)
  return out
}

/**
 * The index of the quote that closes the string opening at `at`; -1 when it does not close. Core's
 * `jsonStringEnd` on bytes: reading the body as a string first would cost ~1 ms per MB more.
 */
function stringEnd(raw: Buffer, at: number): number {
  let i = at
  for (;;) {
    i = raw.indexOf(QUOTE, i + 1)
    if (i < 0) return -1
    let k = i - 1
    while (raw[k] === BACKSLASH) k--
    if ((i - 1 - k) % 2 === 0) return i // an even number of backslashes before it: it closes
  }
}

function skipSpace(raw: Buffer, at: number): number {
  let i = at
  while (raw[i] === SPACE || raw[i] === LINE_FEED || raw[i] === CARRIAGE_RETURN || raw[i] === TAB) i++
  return i
}

/** Whether the string from quote `open` to quote `close` is the key `model` (escapes decoded). */
function isModelKey(raw: Buffer, open: number, close: number): boolean {
  const length = close - open - 1
  if (length === MODEL.length) return raw.compare(MODEL, 0, MODEL.length, open + 1, close) === 0
  // `model` with escapes in it (`mod\u0065l`): five characters of at most six bytes each.
  if (length < MODEL.length || length > 6 * MODEL.length) return false
  if (raw.subarray(open + 1, close).indexOf(BACKSLASH) < 0) return false
  try {
    return JSON.parse(raw.toString('utf8', open, close + 1)) === 'model'
  } catch {
    return false
  }
}

const MODEL = Buffer.from('model')
