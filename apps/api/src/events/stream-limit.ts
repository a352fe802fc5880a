import { SvcError } from '@svc/core'

/** Default cap on live streams (`/api/events` subscribers and `logs?follow=1` followers together). */
export const DEFAULT_MAX_STREAMS = 64

/** A count of open long-lived streams with a cap; each one holds a connection, timers and a queue. */
export interface StreamLimit {
  /**
   * Takes a place, or throws 503 `server.busy` with `Retry-After` when all are taken (before any
   * stream byte is written). Returns the release, which is idempotent.
   */
  acquire(): () => void
  readonly open: number
}

export function createStreamLimit(max = DEFAULT_MAX_STREAMS): StreamLimit {
  let open = 0
  return {
    acquire() {
      if (open >= max) {
        throw new SvcError(
          'server.busy',
          `${max} live streams are open (SVC_MAX_STREAMS); close a dashboard tab or log view, or try again`,
          { headers: { 'Retry-After': '10' } },
        )
      }
      open++
      let released = false
      return () => {
        if (released) return
        released = true
        open--
      }
    },
    get open() {
      return open
    },
  }
}
