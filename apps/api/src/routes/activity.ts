import { SvcError } from '@svc/core'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { ActivityLog } from '../activity/activity-log'
import type {
  ActivityAnswer,
  ActivityEntry,
  CapturedExchange,
  CaptureState,
} from '../activity/activity-types'
import { activityViewerOf } from '../activity/activity-viewer'
import { parseWith, readJson } from '../validate'
import { isAdmin } from '../views/redact'

const ActivityQuerySchema = v.object({
  model: v.optional(v.pipe(v.string(), v.maxLength(512))),
  caller: v.optional(v.pipe(v.string(), v.maxLength(512))),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,4}$/, 'a whole number'), v.transform(Number), v.minValue(1)),
  ),
})

/** `POST /api/activity/capture`: on for `minutes` (fractions allowed; at most a day), or off. */
export const CaptureSchema = v.object({
  on: v.boolean(),
  minutes: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(1440)), 10),
})

/**
 * The activity view (docs/api.md#activity), mounted at `/api/activity`:
 *
 * - `GET /?model=&caller=&limit=` → `{inflight, recent, capture}`: requests in flight now and the
 *   last few hundred finished, newest first; `model` matches a model or slot name, `caller` a token
 *   id, token label or identity. Admins see every request, anyone else its own token's only.
 * - `GET /:id` → `{entry, capture}`: one request; `capture` (its redacted bodies) only for an admin,
 *   null when capture did not keep it.
 * - `POST /capture {on, minutes}` (admin): body capture on for a while, or off → the capture state.
 *
 * 404 `route.not_found` when the API runs without an activity log.
 */
export function activityRoutes(deps: { activityLog?: ActivityLog }) {
  const logOf = (): ActivityLog => {
    if (!deps.activityLog) throw new SvcError('route.not_found', 'the activity log is not running here')
    return deps.activityLog
  }
  return new Hono()
    .get('/', (c) => {
      const q = parseWith(ActivityQuerySchema, c.req.query())
      const answer: ActivityAnswer = logOf().list(activityViewerOf(c.get('principal')), q)
      return c.json(answer)
    })
    .post('/capture', async (c) => {
      const log = logOf()
      if (!isAdmin(c.get('principal')))
        throw new SvcError('auth.forbidden', 'only an admin may turn body capture on or off')
      const body = await readJson(c, CaptureSchema)
      const state: CaptureState = log.capture.set(body.on, body.minutes)
      return c.json(state)
    })
    .get('/:id', (c) => {
      const principal = c.get('principal')
      const found = logOf().find(activityViewerOf(principal), c.req.param('id'))
      if (!found) throw new SvcError('route.not_found', `no request ${c.req.param('id')} in the activity log`)
      const answer: { entry: ActivityEntry; capture: CapturedExchange | null } = {
        entry: found.entry,
        capture: isAdmin(principal) ? found.capture : null,
      }
      return c.json(answer)
    })
}
