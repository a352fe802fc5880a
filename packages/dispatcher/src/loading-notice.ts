/**
 * What a streamed request sees while its model loads: svc answers 200 with the event-stream headers
 * at once, then SSE comment lines (`: loading qwen3… 40% (pulling)`, `: loading qwen3… (swapping out
 * gemma3…)` while a swap unloads the model before) until the lease comes — ignored by every
 * conforming client (the SSE spec drops lines that start with a colon), readable with curl. The
 * stream then continues with the upstream's events. Once these headers are out, a failure (the load
 * failed, memory refused it, the wait timed out) can no longer change the status: it is sent as one
 * `event: error` whose data is the error body (what OpenAI's SDKs raise), and the stream ends.
 */
import type { ServerResponse } from 'node:http'
import type { LoadingNotice } from '@svc/core'
import { withAddedHeaders } from './response-headers'

/**
 * Responses whose event-stream head a loading notice sent. `writeError` reads it to end such a stream
 * with an error event: `res.getHeader` cannot tell, since a head written with `writeHead(status,
 * headers)` alone (no `setHeader` before it) is not kept where `getHeader` looks.
 */
const openedEarly = new WeakSet<ServerResponse>()

/** Whether a loading notice opened `res` as an event stream (its status already sent: 200). */
export function openedForLoading(res: ServerResponse): boolean {
  return openedEarly.has(res)
}

/** Between comment lines while nothing changes, so proxies and people see it is alive. */
const HEARTBEAT_MS = 2_000

export interface LoadingWriter {
  update(notice: LoadingNotice): void
  /** Stops the heartbeat (the lease came or the request ended); idempotent. */
  stop(): void
}

/** A writer for a request that asked for a stream; undefined for any other (it just waits). */
export function loadingWriter(
  res: ServerResponse,
  json: Record<string, unknown> | undefined,
  requestId: string,
): LoadingWriter | undefined {
  if (json?.stream !== true) return undefined
  let timer: NodeJS.Timeout | undefined
  let last: LoadingNotice | undefined
  /** The comment written last: a step that does not change it (a swap's unloading, then offline) is not repeated. */
  let written = ''
  const line = (n: LoadingNotice) => {
    const percent = n.percent === null ? '' : ` ${n.percent}%`
    return `: loading ${n.model}…${percent} (${n.replacing ? `swapping out ${n.replacing}` : n.state})\n\n`
  }
  const write = () => {
    if (!last || res.writableEnded || res.destroyed) return
    written = line(last)
    res.write(written)
  }
  const stop = () => {
    clearInterval(timer)
    timer = undefined
  }
  return {
    update(notice) {
      last = notice
      if (!res.headersSent) {
        res.writeHead(
          200,
          withAddedHeaders(res, {
            'content-type': 'text/event-stream',
            'cache-control': 'no-cache',
            'x-accel-buffering': 'no',
            'x-request-id': requestId,
          }),
        )
        openedEarly.add(res)
        timer = setInterval(write, HEARTBEAT_MS)
        timer.unref()
        res.once('close', stop)
      }
      if (line(notice) !== written) write()
    },
    stop,
  }
}
