/**
 * What `/api/slots` and the event stream show of a slot, per caller: admins see everything; `all`
 * and `read-only` see no upstream address (loopback ports of upstreams without auth of their own,
 * a replica's URL), no remote URL (it may carry a password), and messages with URLs and file paths
 * reduced.
 */
import type { SlotConfigProblem, SlotStatus } from '../slots/slot-system'
import { redactMaybe, redactText } from './redact'

export type { SlotConfigProblem, SlotStatus }

/** The snapshot for a caller: unchanged for admins, reduced for everyone else. */
export function slotStatusFor(status: SlotStatus, admin: boolean): SlotStatus {
  if (admin) return status
  return {
    ...status,
    upstream: null,
    // A replica's URL is an upstream address (a remote's may hold a password, a swarm task's is a
    // node's host port): admin-only like `upstream`. Its error can quote it.
    replicas: status.replicas?.map((r) => ({ ...r, url: null, error: redactMaybe(r.error) })) ?? null,
    lastError: redactMaybe(status.lastError),
    configError: status.configError && configProblemFor(status.configError, false),
  }
}

/** A config problem for a caller: the file named relative to the config dir unless admin. */
export function configProblemFor(problem: SlotConfigProblem, admin: boolean): SlotConfigProblem {
  if (admin) return problem
  const relative = problem.file.replace(/^.*\/(slots\/[^/]+)$/, '$1')
  return {
    file: relative,
    field: problem.field,
    message: redactText(problem.message.split(problem.file).join(relative)),
  }
}
