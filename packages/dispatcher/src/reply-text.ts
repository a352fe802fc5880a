/** Reading an upstream's reply as text: its tail (for `usage`) and a bounded head (error bodies). */
import type { IncomingMessage } from 'node:http'

/** How much of a reply's end is searched for `usage`. */
export const TAIL = 4096

/** The last `TAIL` bytes of the response as text, from its last two chunks. */
export function tailOf(previous: Buffer | undefined, last: Buffer): string {
  if (last.length >= TAIL || !previous) return last.toString('utf8', Math.max(0, last.length - TAIL))
  const need = TAIL - last.length
  return previous.toString('utf8', Math.max(0, previous.length - need)) + last.toString('utf8')
}

/** Reads up to `limit` bytes of a response as text (for error bodies), then drops the rest. */
export function readSome(up: IncomingMessage, limit: number, first?: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = first ? [first] : []
    let size = first?.length ?? 0
    up.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c)
      size += c.length
    })
    up.on('close', () => resolve(Buffer.concat(chunks).toString('utf8', 0, Math.min(size, limit))))
    up.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}
