/**
 * The keys of a slot file about its replicas (docs/scale-out.md): where local replicas run
 * (`devices`; `replicas` itself is with the other runtime fields), and how requests spread over the
 * replicas (`routing`, `session_header`, `routing_slack`). Routing matters only for a slot with more
 * than one replica (remote `urls`, a swarm service, local `replicas`); a slot file without it routes
 * by cache.
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

/** A local replica's device: a GPU of a backend by its index (`cuda:0`, `rocm:1`, `vulkan:0`), or `cpu`. */
export const DEVICE_PATTERN = /^(?:(?:cuda|rocm|vulkan):\d+(?:,\d+)*|cpu)$/

/** Schema entries spread into `SlotConfigFileSchema`. */
export const REPLICA_FILE_ENTRIES = {
  devices: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(DEVICE_PATTERN, 'a device like "cuda:0", "rocm:1" or "cpu"'))),
      v.minLength(1, 'at least one device'),
      v.maxLength(32, 'at most 32 devices'),
    ),
  ),
  routing: v.optional(v.picklist(ROUTING_POLICIES)),
  session_header: v.optional(headerName),
  routing_slack: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000))),
}

type RoutingFile = {
  [K in keyof typeof REPLICA_FILE_ENTRIES]?: v.InferOutput<(typeof REPLICA_FILE_ENTRIES)[K]>
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
 * How many local replicas of a slot share its busiest device: `replicas` on one device, or the most
 * entries of `devices` naming the same one. A load is charged this many times its estimate.
 */
export function replicasPerDevice(config: {
  replicas?: number | undefined
  devices?: readonly string[] | undefined
}): number {
  if (!config.devices) return Math.max(1, config.replicas ?? 1)
  const counts = new Map<string, number>()
  for (const d of config.devices) counts.set(d, (counts.get(d) ?? 0) + 1)
  return Math.max(...counts.values())
}

/**
 * Whether requests to a slot of `config` can be told apart by replica: remote `urls` with more than
 * one, or `replicas` above one (a swarm service, local replicas). Only then does the dispatcher hash prompts.
 */
export function hasReplicas(config: {
  runtime?: string | undefined
  urls?: readonly string[] | undefined
  replicas?: number | undefined
  devices?: readonly string[] | undefined
}): boolean {
  if (config.runtime === 'remote') return (config.urls?.length ?? 0) > 1
  return (config.replicas ?? config.devices?.length ?? 1) > 1
}
