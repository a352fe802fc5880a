/**
 * The activity log on `/api/events` (asked for with `?activity=1`): an `activity.snapshot` after the
 * stream's `snapshot` (and after each `resync`), then `activity.start`, `activity.update` (while in
 * flight, at most once a second) and `activity.end` for each request the caller may see. Streams that do not ask get none, so an open Slots page costs the hot
 * path nothing (the log makes events only while someone listens).
 */
import type { Principal } from '@svc/auth'
import type { ActivityEventType, ActivityLog } from './activity-log'
import { activityViewerOf } from './activity-viewer'

export interface ActivityFeed {
  /** `activity.snapshot`'s data: `{inflight, recent, capture}` as `GET /api/activity` answers it. */
  snapshot(): string
  /** Stops the events. */
  close(): void
}

/** Feeds `push` with this caller's `activity.*` events until `close`. */
export function feedActivity(
  log: ActivityLog,
  principal: Principal | undefined,
  push: (event: ActivityEventType, data: string) => void,
): ActivityFeed {
  const viewer = activityViewerOf(principal)
  const off = log.subscribe((type, entry) => {
    if (viewer(entry.caller)) push(type, JSON.stringify(entry))
  })
  return {
    snapshot: () => JSON.stringify(log.list(viewer)),
    close: off,
  }
}
