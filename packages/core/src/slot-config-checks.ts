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
  constraints?: string[]
}

/** Which fields go with which runtime: url/urls with remote, replicas/constraints with swarm. */
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
  for (const field of ['replicas', 'constraints'] as const) {
    if (raw[field] !== undefined && raw.runtime !== 'swarm') {
      const hint = field === 'replicas' ? ' (a remote slot lists its replicas in urls)' : ''
      return {
        field,
        expected: 'runtime = "swarm"',
        detail: `${field} is only used with runtime = "swarm"${hint}`,
      }
    }
  }
  return undefined
}
