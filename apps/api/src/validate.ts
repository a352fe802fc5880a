import { SvcError } from '@svc/core'
import { assertJsonDepth } from '@svc/dispatcher'
import type { Context } from 'hono'
import * as v from 'valibot'

/**
 * Reads the JSON body and validates it against `schema`. Malformed JSON, a wrong content type and a
 * schema violation are all 400 `request.invalid`; a schema violation names the field in `param`.
 */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  const type = c.req.header('content-type') ?? ''
  let data: unknown
  const text = await c.req.text()
  if (text.trim() === '') {
    data = {}
  } else {
    if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new SvcError(
        'request.invalid',
        `expected a JSON body (content-type application/json), got ${type}`,
      )
    }
    assertJsonDepth(text)
    try {
      data = JSON.parse(text)
    } catch {
      throw new SvcError('request.invalid', 'request body is not valid JSON')
    }
  }
  return parseWith(schema, data)
}

/** Validates a value; the first issue becomes a 400 with its dotted path as `param`. */
export function parseWith<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  // Only the first issue is reported: stop there (a body of 50 000 unknown keys costs no more).
  const result = v.safeParse(schema, data, { abortEarly: true })
  if (result.success) return result.output
  const issue = result.issues[0]
  const param = v.getDotPath(issue)
  const message = param ? `${param}: ${issue.message}` : issue.message
  throw new SvcError('request.invalid', message, { param })
}
