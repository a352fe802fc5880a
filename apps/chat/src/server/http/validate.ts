import { SvcError } from '@svc/core'
import type { Env, MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import * as v from 'valibot'

/**
 * A JSON body validated against `schema` (typed for the browser's client). Malformed JSON and a
 * schema violation are 400 `request.invalid`, a violation naming its field in `param`; a body that is
 * not `application/json` is read as `{}`, so the schema names the first field it misses.
 */
export function jsonBody<S extends v.GenericSchema>(
  schema: S,
): MiddlewareHandler<Env, string, { in: { json: v.InferInput<S> }; out: { json: v.InferOutput<S> } }> {
  // Typed by hand: Hono would take the output (defaults filled in) as what the client must send.
  return validator('json', (value): v.InferOutput<S> => parseWith(schema, value)) as MiddlewareHandler
}

/** The query string validated against `schema`. */
export function queryOf<S extends v.GenericSchema>(schema: S) {
  return validator('query', (value): v.InferOutput<S> => parseWith(schema, value))
}

/** Validates a value; the first issue becomes a 400 with its dotted path as `param`. */
export function parseWith<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, data)
  if (result.success) return result.output
  const issue = result.issues[0]
  const param = v.getDotPath(issue)
  const message = param ? `${param}: ${issue.message}` : issue.message
  throw new SvcError('request.invalid', message, { param })
}
