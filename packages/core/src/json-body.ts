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
   * Stop validating at the first issue (default): a body of 50 000 unknown keys costs no more than
   * one. `false` checks on, so a union reports the issue of its closest branch (`input.0`), which the
   * inference schemas' messages rely on; their bodies are loose objects, so unknown keys cost nothing.
   */
  abortEarly?: boolean
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
  const abortEarly = options.abortEarly ?? true
  if (options.emptyIsObject && text.trim() === '') return validateWith(schema, {}, abortEarly)
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
  return validateWith(schema, data, abortEarly)
}

/**
 * Validates a value; the first issue becomes a 400 with its dotted path as `param` (`abortEarly`:
 * see {@link JsonRequestOptions}).
 */
export function validateWith<S extends v.GenericSchema>(
  schema: S,
  data: unknown,
  abortEarly = true,
): v.InferOutput<S> {
  const result = v.safeParse(schema, data, { abortEarly })
  if (result.success) return result.output
  const issue = result.issues[0]
  const param = v.getDotPath(issue)
  const message = param ? `${param}: ${issue.message}` : issue.message
  throw new SvcError('request.invalid', message, { param })
}
