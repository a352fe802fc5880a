import { FORWARDED_EVENTS, type SvcEvents } from '@svc/core'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import type { ActivityLog } from '../activity/activity-log'
import { feedActivity } from '../activity/activity-stream'
import { createEventQueue } from '../events/event-queue'
import { createStreamLimit, type StreamLimit } from '../events/stream-limit'
import { createSlotFacts } from '../slots/slot-facts'
import type { SlotSystem } from '../slots/slot-system'
import { type EventPayload, eventFor } from '../views/event-view'
import { isAdmin } from '../views/redact'
import { slotStatusFor } from '../views/slot-view'

/** Events a client may be behind by before it is sent a `resync` instead. */
export const EVENT_QUEUE_MAX = 256

export interface EventRoutesDeps {
  slots: SlotSystem
  /** Between `: ping` comments (ms). Default 15 s. */
  heartbeatMs?: number
  /** Per-client queue bound (events). Default {@link EVENT_QUEUE_MAX}. */
  eventQueueMax?: number
  /** The cap on live streams, shared with log followers (503 `server.busy` past it). */
  streams?: StreamLimit
  /** The activity log, streamed to callers who ask with `?activity=1` (activity/activity-stream.ts). */
  activityLog?: ActivityLog
}

/**
 * `GET /api/events` → Server-Sent Events (the contract the dashboard and the CLI rely on):
 *
 * 1. a `: connected` comment, then `snapshot` — `{slots: SlotStatus[]}`, each with the facts of
 *    `GET /api/slots` (`serves`, `runnable`, `memory`, `context_size`: `slots/slot-facts.ts`);
 * 2. every bus event of `FORWARDED_EVENTS` (core `api-events.ts`, the one definition the dashboard
 *    reads too: `slot.transition`, `slot.progress`, `slot.restart`, `slot.config`, `slot.metrics`,
 *    `model.pull`, `slot.auto`, `slot.queue`) as it happens (event name = type, data = JSON);
 * 3. `resync` — `{slots: SlotStatus[]}`, the same as `snapshot` — when this client fell more than
 *    `eventQueueMax` events behind: what was queued is dropped and the client replaces its state;
 * 4. a `: ping` comment every `heartbeatMs` so proxies keep the stream open;
 * 5. with `?activity=1`: `activity.snapshot` after each `snapshot`/`resync`, then `activity.start`,
 *    `activity.update` and `activity.end` per request (non-admins: their own requests only;
 *    activity/activity-stream.ts).
 *
 * Past the live-stream cap (`streams`, SVC_MAX_STREAMS) a subscriber is refused 503 `server.busy` with
 * `Retry-After`, before the stream starts. One heartbeat timer per connection, cleared when it ends. Callers that are not admin get the
 * redacted view (no upstream addresses, URLs and paths reduced in messages).
 */
export function eventRoutes(deps: EventRoutesDeps) {
  const heartbeatMs = deps.heartbeatMs ?? 15_000
  const max = deps.eventQueueMax ?? EVENT_QUEUE_MAX
  const streams = deps.streams ?? createStreamLimit()
  const facts = createSlotFacts(deps.slots)
  return new Hono().get('/', (c) => {
    const release = streams.acquire()
    const admin = isAdmin(c.get('principal'))
    c.header('X-Accel-Buffering', 'no')
    c.header('Cache-Control', 'no-cache')
    const snapshot = async () => {
      const known = await facts.read().catch(() => undefined)
      const slots = deps.slots.statuses().map((s) => ({ ...slotStatusFor(s, admin), ...known?.get(s.name) }))
      return JSON.stringify({ slots })
    }
    return streamSSE(c, async (stream) => {
      const queue = createEventQueue(max)
      let wake: (() => void) | undefined
      let pingDue = false
      let closed = false
      const activity =
        deps.activityLog && c.req.query('activity') === '1'
          ? feedActivity(deps.activityLog, c.get('principal'), (event, data) => {
              queue.push({ event, data })
              wake?.()
            })
          : undefined
      const offs = FORWARDED_EVENTS.map((type) =>
        deps.slots.bus.on(type, (payload: SvcEvents[typeof type]) => {
          queue.push({
            event: type,
            data: JSON.stringify(eventFor(type, payload as unknown as EventPayload, admin)),
          })
          wake?.()
        }),
      )
      const heartbeat = setInterval(() => {
        pingDue = true
        wake?.()
      }, heartbeatMs)
      stream.onAbort(() => {
        closed = true
        wake?.()
      })
      try {
        await stream.write(': connected\n\n')
        await stream.writeSSE({ event: 'snapshot', data: await snapshot() })
        if (activity) await stream.writeSSE({ event: 'activity.snapshot', data: activity.snapshot() })
        while (!closed) {
          const next = queue.next()
          if (next === 'resync') {
            await stream.writeSSE({ event: 'resync', data: await snapshot() })
            if (activity) await stream.writeSSE({ event: 'activity.snapshot', data: activity.snapshot() })
          } else if (next) await stream.writeSSE(next)
          else if (pingDue) {
            pingDue = false
            await stream.write(': ping\n\n')
          } else {
            await new Promise<void>((resolve) => {
              wake = resolve
            })
            wake = undefined
          }
        }
      } finally {
        release()
        clearInterval(heartbeat)
        for (const off of offs) off()
        activity?.close()
      }
    })
  })
}
