/**
 * JSON with integers beyond 2^53 on the way out. ComfyUI seeds go up to 2^64−1
 * (18446744073709551615), and `JSON.stringify` refuses a `bigint`. (On the way in, request bodies are
 * parsed with `JSON.parse` and only their seeds are restored exactly: `exactSeeds` in image-request.)
 */
import { randomUUID } from 'node:crypto'

/** `JSON.stringify`, writing a `bigint` as a bare integer literal. */
export function stringifyJsonBig(value: unknown): string {
  const tag = `\u0000big:${randomUUID()}:`
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${tag}${v}` : v))
  // JSON.stringify escapes U+0000 as \u0000, so the marker cannot collide with a real string
  return text.replace(new RegExp(`"\\\\u0000big:${tag.slice(5)}(-?\\d+)"`, 'g'), '$1')
}
