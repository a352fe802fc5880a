import { assertJsonDepth, validateWith } from '@svc/core'
import type { Env, MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import type * as v from 'valibot'

/**
 * A JSON body validated against `schema` (typed for the browser's client). Malformed JSON and a
 * schema violation are 400 `request.invalid`, a violation naming its field in `param`, and so is a body
 * that would cost the parser too much (core's `assertJsonDepth`); a body that is
 * not `application/json` is read as `{}`, so the schema names the first field it misses.
 */
export function jsonBody<S extends v.GenericSchema>(
  schema: S,
): MiddlewareHandler<Env, string, { in: { json: v.InferInput<S> }; out: { json: v.InferOutput<S> } }> {
  const validate = validator(
    'json',
    (value): v.InferOutput<S> => parseWith(schema, value),
  ) as MiddlewareHandler
  // Core's guard before JSON.parse first (depth, number of objects and arrays), as on the API.
  const guarded: MiddlewareHandler = async (c, next) => {
    if (/\bjson\b/i.test(c.req.header('content-type') ?? '')) assertJsonDepth(await c.req.text())
    return validate(c, next)
  }
  // Typed by hand: Hono would take the output (defaults filled in) as what the client must send.
  return guarded as MiddlewareHandler
}

/** The query string validated against `schema`. */
export function queryOf<S extends v.GenericSchema>(schema: S) {
  return validator('query', (value): v.InferOutput<S> => parseWith(schema, value))
}

/** Validates a value (core's `validateWith`); the first issue becomes a 400 naming its field. */
export function parseWith<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  return validateWith(schema, data)
}
