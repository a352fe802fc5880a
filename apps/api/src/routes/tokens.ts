import {
  QuotaLimitsSchema,
  SCOPES,
  TOKEN_ID_PATTERN,
  TokenLabelSchema,
  TokenModelsInputSchema,
  type TokenStore,
} from '@svc/auth'
import { SvcError } from '@svc/core'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { AppDeps } from '../deps'
import { readJson } from '../validate'

export const CreateTokenSchema = v.object({
  label: TokenLabelSchema,
  scope: v.optional(v.picklist(SCOPES, `one of ${SCOPES.join(', ')}`), 'v1-only'),
  limits: v.nullish(QuotaLimitsSchema),
  /** Globs over the model names it may send (`["qwen3-8b*", "embed"]`); null, absent or `[]`: every model. */
  models: TokenModelsInputSchema,
})

export const PatchTokenSchema = v.strictObject({ limits: v.nullable(QuotaLimitsSchema) })

/** Sent with every new token: it is never shown again. */
export const TOKEN_WARNING =
  'Store this token now: it is shown only once and cannot be recovered (svc keeps only an argon2id hash of it).'

/**
 * Token management, mounted at `/api/auth/tokens` (admin only, by the scope policy).
 *
 * - `POST /` `{label, scope?, limits?, models?}` → 201 `{id, label, scope, created_at, last_used_at,
 *   limits, models, token, warning}`; `scope` defaults to `v1-only`; `limits` is `{requests_per_minute?,
 *   tokens_per_minute?, tokens_per_day?}` (whole numbers >= 1); `models` globs over the model names
 *   the token may send (`*`, `?`; null or empty: every model; docs/auth.md#tokens-limited-to-models).
 *   The only response that carries a token.
 * - `PATCH /:id` `{limits}` → the token as listed: its limits replaced (`null` or `{}` removes them);
 *   they apply from its next request. Unknown id → 404 `token.not_found`.
 * - `GET /` → `{tokens: [{id, label, scope, created_at, last_used_at, limits, models}], problem}`: no secrets, no
 *   hashes; `problem` (or null) says why tokens.toml is unusable — the tokens listed are then the
 *   last good ones, still in force, and changes answer 409 `config.invalid` until it is fixed.
 * - `DELETE /:id` → `{id, revoked: true}`; the token fails on its very next use. Unknown id → 404
 *   `token.not_found` (an id that is not even well formed is not echoed, in case it is a token).
 */
export function tokenRoutes(deps: Pick<AppDeps, 'auth'>) {
  const store = (): TokenStore => {
    if (!deps.auth.store) throw new SvcError('route.not_found', 'token management is not configured here')
    return deps.auth.store
  }
  return new Hono()
    .post('/', async (c) => {
      const input = await readJson(c, CreateTokenSchema)
      const created = await store().create(input)
      return c.json({ ...created, warning: TOKEN_WARNING }, 201)
    })
    .get('/', async (c) => {
      const tokens = store()
      await tokens.refresh() // `problem` as of now, not as of the last request that verified a token
      const list = await tokens.list()
      return c.json({ tokens: list, problem: tokens.problem })
    })
    .patch('/:id', async (c) => {
      const id = tokenId(c.req.param('id'))
      const { limits } = await readJson(c, PatchTokenSchema)
      const changed = await store().setLimits(id, limits)
      if (!changed) throw new SvcError('token.not_found', `no token with id ${id}`, { param: 'id' })
      return c.json(changed)
    })
    .delete('/:id', async (c) => {
      const id = tokenId(c.req.param('id'))
      if (!(await store().revoke(id)))
        throw new SvcError('token.not_found', `no token with id ${id}`, { param: 'id' })
      return c.json({ id, revoked: true as const })
    })
}

/** A well-formed token id, or 404 without echoing it (in case it is a whole token). */
function tokenId(id: string): string {
  if (!TOKEN_ID_PATTERN.test(id)) {
    throw new SvcError('token.not_found', 'no token with that id (an id is 12 letters and digits)', {
      param: 'id',
    })
  }
  return id
}
