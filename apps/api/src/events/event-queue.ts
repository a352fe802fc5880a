/**
 * The per-client queue of `/api/events`: bounded, so a client that reads slower than events happen
 * costs at most `max` queued events. When it overflows, everything queued is dropped and further
 * events are ignored until the client is sent a `resync` (a fresh snapshot, taken when it is written,
 * so it already includes what was dropped).
 */

export interface QueuedEvent {
  event: string
  data: string
}

export interface EventQueue {
  /** Queues an event; when `max` are already waiting, drops them all and marks the client behind. */
  push(event: QueuedEvent): void
  /** The next thing to send: an event, `'resync'` once after an overflow, or undefined when empty. */
  next(): QueuedEvent | 'resync' | undefined
  readonly size: number
}

export function createEventQueue(max: number): EventQueue {
  let items: QueuedEvent[] = []
  let behind = false
  return {
    push(event) {
      if (behind) return
      if (items.length >= max) {
        items = []
        behind = true
        return
      }
      items.push(event)
    },
    next() {
      if (behind) {
        behind = false
        return 'resync'
      }
      return items.shift()
    },
    get size() {
      return items.length
    },
  }
}
