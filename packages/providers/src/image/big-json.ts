/**
 * JSON with integers beyond 2^53 on the way out. ComfyUI seeds go up to 2^64−1
 * (18446744073709551615), and `JSON.stringify` refuses a `bigint`. (On the way in, request bodies are
 * parsed with `JSON.parse` and only their seeds are restored exactly: `exactSeeds` in image-request.)
 */
import { randomUUID } from 'node:crypto'

/**
 * A marker as `JSON.stringify` writes it: `"\u0000big:<uuid>:<digits>"`. One literal, compiled once:
 * a `new RegExp` per call (its source holding that call's uuid) leaves V8 native memory behind that
 * no GC returns — about 2 KB per image request, which the soak saw as RSS growing without end.
 */
const MARKER = /"\\u0000big:([0-9a-f-]{36}):(-?\d+)"/g

/** `JSON.stringify`, writing a `bigint` as a bare integer literal. */
export function stringifyJsonBig(value: unknown): string {
  const id = randomUUID()
  const tag = `\u0000big:${id}:`
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${tag}${v}` : v))
  // JSON.stringify escapes U+0000 as \u0000, so only a string holding this call's random uuid could
  // look like a marker: markers with another uuid are a caller's text and stay as they are.
  return text.replace(MARKER, (whole, markerId: string, digits: string) => (markerId === id ? digits : whole))
}
