import { FORWARDED_EVENTS, type SvcEvents } from '@svc/core'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { SlotSystem } from '../slots/slot-system'

/**
 * `GET /api/events` → Server-Sent Events: first one `snapshot` event (`{slots:[…]}`), then every
 * event of `FORWARDED_EVENTS` (core `api-events.ts`, the one definition the dashboard reads too) as it happens (event name = type, data =
 * JSON), and a `: ping` comment every 15 s so proxies keep the stream open.
 */
export function eventRoutes(deps: { slots: SlotSystem; heartbeatMs?: number }) {
  return new Hono().get('/', (c) => {
    c.header('X-Accel-Buffering', 'no')
    c.header('Cache-Control', 'no-cache')
    return streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = []
      let wake: (() => void) | undefined
      const offs = FORWARDED_EVENTS.map((type) =>
        deps.slots.bus.on(type, (payload: SvcEvents[typeof type]) => {
          queue.push({ event: type, data: JSON.stringify(payload) })
          if (queue.length > 1000) queue.shift() // a stalled client drops old progress, never grows memory
          wake?.()
        }),
      )
      let closed = false
      stream.onAbort(() => {
        closed = true
        wake?.()
      })
      try {
        await stream.writeSSE({
          event: 'snapshot',
          data: JSON.stringify({ slots: deps.slots.manager.list() }),
        })
        while (!closed) {
          if (queue.length === 0) {
            const timer = new Promise<void>((resolve) => {
              wake = resolve
              setTimeout(resolve, deps.heartbeatMs ?? 15_000)
            })
            await timer
            wake = undefined
            if (queue.length === 0 && !closed) await stream.write(': ping\n\n')
            continue
          }
          const next = queue.shift()!
          await stream.writeSSE(next)
        }
      } finally {
        for (const off of offs) off()
      }
    })
  })
}
