/**
 * Checks of a slot config that a schema alone does not express: which fields go with which runtime,
 * and which of a union's issues to report.
 */
import type * as v from 'valibot'

type Issue = v.BaseIssue<unknown>

/**
 * A union (`model` is a string or a table) reports each branch's issues with paths relative to it:
 * the one deepest in wins, with its full path (`model.default`).
 */
export function deepestIssue<I extends Issue>(issue: I): I {
  let best = issue
  for (const sub of (issue.issues ?? []) as I[]) {
    const deeper = deepestIssue(sub)
    const path = [...(issue.path ?? []), ...(deeper.path ?? [])] as Issue['path']
    if ((path?.length ?? 0) > (best.path?.length ?? 0)) best = { ...deeper, path } as I
  }
  return best
}

/** The fields of a slot file that depend on its runtime (what `runtimeFieldsRefusal` reads). */
export interface RuntimeFields {
  runtime?: string
  url?: string
  urls?: string[]
  replicas?: number
  devices?: string[]
  constraints?: string[]
  backend?: string
}

/**
 * Which fields go with which runtime: url/urls with remote, constraints with swarm, replicas with
 * swarm and the local runtimes (process, container, or the picker's choice), devices with the local
 * ones only, one per replica, of the slot's backend.
 */
export function runtimeFieldsRefusal(
  raw: RuntimeFields,
): { field: string; expected: string; detail: string } | undefined {
  const remote = raw.runtime === 'remote'
  if (remote && !raw.url && !raw.urls) {
    return {
      field: 'url',
      expected: 'an http(s) URL',
      detail: 'runtime = "remote" needs the url (or urls) of the running upstream',
    }
  }
  if (raw.url && raw.urls) {
    return { field: 'urls', expected: 'url or urls', detail: 'give either url or urls, not both' }
  }
  for (const field of ['url', 'urls'] as const) {
    if (raw[field] && !remote) {
      return {
        field,
        expected: 'runtime = "remote"',
        detail: `${field} is only used with runtime = "remote"`,
      }
    }
  }
  if (raw.constraints !== undefined && raw.runtime !== 'swarm') {
    return {
      field: 'constraints',
      expected: 'runtime = "swarm"',
      detail: 'constraints is only used with runtime = "swarm"',
    }
  }
  if (raw.replicas !== undefined && remote) {
    return {
      field: 'replicas',
      expected: 'no replicas',
      detail: 'replicas is not used with runtime = "remote" (a remote slot lists its replicas in urls)',
    }
  }
  return devicesRefusal(raw)
}

function devicesRefusal(raw: RuntimeFields): { field: string; expected: string; detail: string } | undefined {
  const devices = raw.devices
  if (!devices) return undefined
  if (raw.runtime === 'remote' || raw.runtime === 'swarm') {
    return {
      field: 'devices',
      expected: 'runtime = "process" or "container"',
      detail: `devices places local replicas; a ${raw.runtime} slot's replicas run elsewhere`,
    }
  }
  if (raw.replicas !== undefined && raw.replicas !== devices.length) {
    return {
      field: 'replicas',
      expected: `${devices.length} (one per device)`,
      detail: `replicas = ${raw.replicas} but devices lists ${devices.length}: one replica runs per device`,
    }
  }
  const kinds = new Set(devices.map((d) => d.split(':')[0]))
  const kind = [...kinds][0]!
  if (kinds.size > 1 || (raw.backend !== undefined && raw.backend !== kind)) {
    const own = raw.backend ? `, the slot's (${raw.backend})` : ''
    return {
      field: 'devices',
      expected: `devices of one backend${own}`,
      detail: `every device must be of one backend${own}: got ${devices.join(', ')}`,
    }
  }
  return undefined
}
