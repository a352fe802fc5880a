/**
 * The sizes the chat server accepts, in one place the page reads too (it checks before sending, so
 * nothing a person typed or picked is thrown away by a refusal).
 */

/**
 * The most one message may be: 1 MB of UTF-8 text (about 250k tokens, more than any local model's
 * context; the dashboard's playground takes 32 MiB because it sends whole conversations of files).
 */
export const MAX_MESSAGE_BYTES = 1_000_000

/** Largest image a person may attach, in bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024

/**
 * Largest JSON body of a conversation request: a message at its most, JSON-escaped (quotes and
 * line breaks double), with the conversation's settings. Bounded; bigger is 413 `request.too_large`.
 */
export const MAX_JSON_BODY_BYTES = 3 * MAX_MESSAGE_BYTES

/** The UTF-8 size of `text` in bytes (what the limits above count). */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength
}
