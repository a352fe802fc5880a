/** Input checks the token store shares: valibot refusals as 400s, and the optional limits field. */
import { SvcError } from '@svc/core'
import * as v from 'valibot'
import { hasLimits, type QuotaLimits } from './quota'

/** The input as `schema` reads it, or 400 `request.invalid` naming the field. */
export function valid<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix?: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input)
  if (result.success) return result.output
  const path = v.getDotPath(result.issues[0])
  const param = [prefix, path].filter(Boolean).join('.') || null
  throw new SvcError('request.invalid', `${param ?? 'token'}: ${result.issues[0].message}`, { param })
}

/** `{limits}` for a record, or nothing when no limit is set (the file then has no `[token.limits]`). */
export function limitsField(limits: QuotaLimits | null | undefined): { limits?: QuotaLimits } {
  return hasLimits(limits) ? { limits } : {}
}
