/** Reading an upstream's reply as text: its tail (for `usage`), and a bounded error body. */

/** How much of a reply's end is searched for `usage`. */
export const TAIL = 4096

/** The last `TAIL` bytes of the response as text, from its last two chunks. */
export function tailOf(previous: Buffer | undefined, last: Buffer): string {
  if (last.length >= TAIL || !previous) return last.toString('utf8', Math.max(0, last.length - TAIL))
  const need = TAIL - last.length
  return previous.toString('utf8', Math.max(0, previous.length - need)) + last.toString('utf8')
}

/** The most of an error's body that is read (its message goes into svc's error body). */
export const MAX_ERROR_BODY = 64 * 1024

/** An error reply's body, kept up to `MAX_ERROR_BODY` bytes; the rest is counted and dropped. */
export class ErrorBodyText {
  private readonly chunks: Buffer[] = []
  private size = 0

  push(chunk: Buffer): void {
    if (this.size < MAX_ERROR_BODY) this.chunks.push(chunk)
    this.size += chunk.length
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8', 0, Math.min(this.size, MAX_ERROR_BODY))
  }
}
