/** Reading an upstream's reply as text: its tail (for `usage`). */

/** How much of a reply's end is searched for `usage`. */
export const TAIL = 4096

/** The last `TAIL` bytes of the response as text, from its last two chunks. */
export function tailOf(previous: Buffer | undefined, last: Buffer): string {
  if (last.length >= TAIL || !previous) return last.toString('utf8', Math.max(0, last.length - TAIL))
  const need = TAIL - last.length
  return previous.toString('utf8', Math.max(0, previous.length - need)) + last.toString('utf8')
}
