import { parseJsonRequest, validateWith } from '@svc/core'
import type { Context } from 'hono'
import type * as v from 'valibot'

/**
 * Reads a management route's JSON body and validates it against `schema` (core's
 * `parseJsonRequest`; an empty body is `{}`). Every refusal is 400 `request.invalid`; a schema
 * violation names the field in `param`.
 */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseJsonRequest(await c.req.text(), c.req.header('content-type'), schema, { emptyIsObject: true })
}

/** Validates a value; the first issue becomes a 400 with its dotted path as `param`. */
export function parseWith<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  return validateWith(schema, data)
}
