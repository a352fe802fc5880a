/** Input checks the token store shares: valibot refusals as 400s, the optional limits and models fields. */
import { SvcError } from '@svc/core'
import * as v from 'valibot'
import { MODEL_GLOBS_MAX, ModelGlobSchema } from './model-globs'
import { SCOPES } from './policy'
import { hasLimits, type QuotaLimits, QuotaLimitsSchema } from './quota'
import { TokenLabelSchema } from './tokens-file'

/** `models` as the API and the store take it: null, absent or `[]` means every model. */
export const TokenModelsInputSchema = v.nullish(
  v.pipe(
    v.array(ModelGlobSchema, 'a list of model names or globs'),
    v.maxLength(MODEL_GLOBS_MAX, `at most ${MODEL_GLOBS_MAX} models`),
  ),
)

/** What `create` takes. */
export const CreateTokenInputSchema = v.object({
  label: TokenLabelSchema,
  scope: v.optional(v.picklist(SCOPES, `one of ${SCOPES.join(', ')}`), 'v1-only'),
  limits: v.nullish(QuotaLimitsSchema),
  models: TokenModelsInputSchema,
})

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

/** `{models}` for a record, or nothing for every model (the file then has no `models` key). */
export function modelsField(models: readonly string[] | null | undefined): { models?: string[] } {
  return models && models.length > 0 ? { models: [...models] } : {}
}

/** `{limits}` for a record, or nothing when no limit is set (the file then has no `[token.limits]`). */
export function limitsField(limits: QuotaLimits | null | undefined): { limits?: QuotaLimits } {
  return hasLimits(limits) ? { limits } : {}
}
