/**
 * The one JSON-body reader of svc's HTTP edges (the dispatcher's inference requests and the API's
 * management routes): content type, nesting depth, syntax, shape and schema, each refused as 400
 * `request.invalid`, a schema violation naming its field in `param`. Pure: text in, value out.
 */
import * as v from 'valibot'
import { SvcError } from './errors'
import { assertJsonDepth } from './json-depth'

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i

export interface JsonRequestOptions {
  /** An empty (or blank) body stands for `{}` (routes whose every field is optional). Default: refused. */
  emptyIsObject?: boolean
  /**
   * A cheaper check for the common body: true only for values `schema` accepts and returns unchanged
   * (a loose object schema without transforms). When true the schema does not run; when false it
   * runs and its issue is the 400, as without this. (The dispatcher's `quick-accept.ts`.)
   */
  accepts?: (data: Record<string, unknown>) => boolean
}

/**
 * Parses a request body's text as JSON and validates it against `schema`. A `contentType` other than
 * JSON is refused (none at all is taken as JSON); bodies nested deeper than `MAX_JSON_DEPTH` are
 * refused before parsing; the value must be a JSON object.
 */
export function parseJsonRequest<S extends v.GenericSchema>(
  text: string,
  contentType: string | undefined,
  schema: S,
  options: JsonRequestOptions = {},
): v.InferOutput<S> {
  if (options.emptyIsObject && text.trim() === '') return validateWith(schema, {})
  if (contentType && !JSON_TYPE.test(contentType)) {
    throw new SvcError(
      'request.invalid',
      `expected a JSON body (content-type application/json), got ${contentType}`,
    )
  }
  assertJsonDepth(text)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new SvcError('request.invalid', 'request body is not valid JSON')
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new SvcError('request.invalid', 'request body must be a JSON object')
  }
  if (options.accepts?.(data as Record<string, unknown>)) return data as v.InferOutput<S>
  return validateWith(schema, data)
}

/** Whether `value` is a JSON object: not null, not an array (what a request body's fields are checked for). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Validates a value; the first issue becomes a 400 with its dotted path as `param`. Validation stops
 * at the first issue: collecting them all costs an issue object (message, path) per bad element, so
 * a 1 MB array of wrong elements held the event loop for seconds and hundreds of MB — with the first
 * issue only, the work is bounded by the parse that came before it.
 */
export function validateWith<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, data, { abortEarly: true })
  if (result.success) return result.output
  const issue = closestBranch(result.issues[0])
  const param = v.getDotPath(issue)
  const message = param ? `${param}: ${issue.message}` : issue.message
  throw new SvcError('request.invalid', message, { param })
}

/**
 * A union's issue names the union; when exactly one branch matched the value's type and failed a
 * check further in (`input: [1.5]` is an array of numbers, but not of integers), that branch's issue
 * says more (`input.0`). Stopping early marks such a branch untyped, so its issue kind is the mark.
 * A branch's path is relative to the union's.
 */
function closestBranch(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  let current = issue
  while (current.type === 'union' && current.issues) {
    const checked = current.issues.filter((sub) => sub.kind === 'validation')
    if (checked.length !== 1) break
    const sub = checked[0]!
    current = { ...sub, path: [...(current.path ?? []), ...(sub.path ?? [])] as typeof sub.path }
  }
  return current
}
