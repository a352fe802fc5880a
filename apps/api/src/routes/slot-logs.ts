import type { SlotManager } from '@svc/core'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import * as v from 'valibot'
import { createStreamLimit, type StreamLimit } from '../events/stream-limit'
import { appendedLines } from '../slots/log-diff'
import { parseWith } from '../validate'
import { isAdmin, redactText } from '../views/redact'

const LogsQuerySchema = v.object({
  follow: v.optional(v.picklist(['1', '0', 'true', 'false'], 'follow must be 1 or 0')),
})

export interface SlotLogOptions {
  manager: SlotManager
  /** How often a follower looks for new lines (ms). Default 500. */
  pollMs?: number
  /** Keep-alive comment interval while nothing is logged (ms). Default 15 s. */
  heartbeatMs?: number
  /** The cap on live streams, shared with `/api/events` (503 `server.busy` past it). */
  streams?: StreamLimit
}

/**
 * An upstream's log, mounted at `/api/slots`.
 *
 * - `GET /:slot/logs` → `{lines}`: the last lines (at most 500) the upstream wrote.
 * - `GET /:slot/logs?follow=1` → Server-Sent Events: `event: lines` with `{lines, reset}` — first the
 *   lines so far (`reset: true`), then new lines as they are written; `reset: true` again when the
 *   tail could not be continued (a new upstream, or more lines than the ring holds): the client then
 *   replaces what it shows. A `: ping` comment keeps proxies from closing a quiet stream. Past the
 *   live-stream cap (SVC_MAX_STREAMS) a follower is refused 503 `server.busy` with `Retry-After`.
 *
 * Callers that are not admin get each line redacted (URLs cut to `scheme://host/…`, paths to the file
 * name: `views/redact.ts`).
 */
export function slotLogRoutes(options: SlotLogOptions) {
  const { manager } = options
  const streams = options.streams ?? createStreamLimit()
  return new Hono().get('/:slot/logs', (c) => {
    const slot = manager.get(c.req.param('slot'))
    const admin = isAdmin(c.get('principal'))
    const shown = (lines: string[]) => (admin ? lines : lines.map(redactText))
    const { follow } = parseWith(LogsQuerySchema, c.req.query())
    if (follow !== '1' && follow !== 'true') return c.json({ lines: shown(slot.logs()) })
    const release = streams.acquire()
    c.header('X-Accel-Buffering', 'no')
    c.header('Cache-Control', 'no-cache')
    return streamSSE(c, async (stream) => {
      stream.onAbort(release)
      try {
        let closed = false
        let wake: (() => void) | undefined
        stream.onAbort(() => {
          closed = true
          wake?.()
        })
        const pause = (ms: number) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms)
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
        await stream.write(': connected\n\n')
        let prev = slot.logs()
        await stream.writeSSE({ event: 'lines', data: JSON.stringify({ lines: shown(prev), reset: true }) })
        let quietSince = Date.now()
        while (!closed) {
          await pause(options.pollMs ?? 500)
          if (closed) break
          const cur = slot.logs()
          const next = appendedLines(prev, cur)
          prev = cur
          if (next.lines.length > 0 || next.reset) {
            await stream.writeSSE({
              event: 'lines',
              data: JSON.stringify({ ...next, lines: shown(next.lines) }),
            })
            quietSince = Date.now()
          } else if (Date.now() - quietSince >= (options.heartbeatMs ?? 15_000)) {
            await stream.write(': ping\n\n')
            quietSince = Date.now()
          }
        }
      } finally {
        release()
      }
    })
  })
}
