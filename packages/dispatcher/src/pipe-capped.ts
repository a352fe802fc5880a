import type { IncomingMessage } from 'node:http'
import type { Writable } from 'node:stream'

/**
 * `from.pipe(to)` that counts: once more than `max` bytes came through, it stops forwarding and calls
 * `onOverflow` (which ends the hop). Only uploads take this path; JSON bodies are sent as one buffer.
 */
export function pipeCapped(from: IncomingMessage, to: Writable, max: number, onOverflow: () => void): void {
  let seen = 0
  const onData = (chunk: Buffer) => {
    seen += chunk.length
    if (seen > max) {
      from.off('data', onData)
      from.off('end', onEnd)
      onOverflow()
      return
    }
    if (!to.write(chunk)) {
      from.pause()
      to.once('drain', () => from.resume())
    }
  }
  const onEnd = () => to.end()
  from.on('data', onData)
  from.on('end', onEnd)
  from.resume()
}
