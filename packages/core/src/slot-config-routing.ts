/**
 * The keys of a slot file that choose how requests spread over the slot's replicas
 * (docs/scale-out.md, "Routing"): `routing`, `session_header` and `routing_slack`. They matter only
 * for a slot with more than one replica (remote `urls`, a swarm service, local `replicas`); a slot
 * file without them routes by cache.
 */
import * as v from 'valibot'
import { ROUTING_DEFAULTS, ROUTING_POLICIES, type RoutingPolicy } from './slot/replica-routing'

/** The header a client names its conversation with, unless the slot names another. */
export const DEFAULT_SESSION_HEADER = 'X-Session-Id'

/** An HTTP header name (RFC 9110 token). */
const headerName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'a header name like "X-Session-Id"'),
)

/** Schema entries spread into `SlotConfigFileSchema`. */
export const ROUTING_FILE_ENTRIES = {
  routing: v.optional(v.picklist(ROUTING_POLICIES)),
  session_header: v.optional(headerName),
  routing_slack: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000))),
}

type RoutingFile = {
  [K in keyof typeof ROUTING_FILE_ENTRIES]?: v.InferOutput<(typeof ROUTING_FILE_ENTRIES)[K]>
}

/** How a slot with replicas chooses one per request (`replica-routing.ts`). */
export interface SlotRoutingConfig {
  /** `cache`: by prompt prefix and session, least loaded when skewed; `least-loaded`: fewest in flight. */
  policy: RoutingPolicy
  /** The session header as the slot file names it (`X-Session-Id`). */
  sessionHeader: string
  /** Requests in flight beyond the least loaded replica before a prefix or session stops drawing. */
  slack: number
}

export function resolveRouting(raw: RoutingFile): SlotRoutingConfig {
  return {
    policy: raw.routing ?? 'cache',
    sessionHeader: raw.session_header ?? DEFAULT_SESSION_HEADER,
    slack: raw.routing_slack ?? ROUTING_DEFAULTS.slack,
  }
}

/** The file's spelling of `routing`, omitting defaults. */
export function stringifyRouting(r: SlotRoutingConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (r.policy !== 'cache') out.routing = r.policy
  if (r.sessionHeader !== DEFAULT_SESSION_HEADER) out.session_header = r.sessionHeader
  if (r.slack !== ROUTING_DEFAULTS.slack) out.routing_slack = r.slack
  return out
}

/**
 * Whether requests to a slot of `config` can be told apart by replica: remote `urls` with more than
 * one, or `replicas` above one (a swarm service, local replicas). Only then does the dispatcher hash prompts.
 */
export function hasReplicas(config: {
  runtime?: string | undefined
  urls?: readonly string[] | undefined
  replicas?: number | undefined
}): boolean {
  if (config.runtime === 'remote') return (config.urls?.length ?? 0) > 1
  return (config.replicas ?? 1) > 1
}
