/**
 * `svc token` over the API (`/api/auth/tokens`), and what the API says about auth: the other backend
 * is the config dir's tokens.toml (token.ts).
 */
import type { CreatedToken, QuotaLimits, Scope, TokenInfo } from '@svc/auth'
import { type ApiResponse, apiError, callApi, errorCode } from '../api-client'
import type { CliContext } from '../context'
import { cliVar } from '../env-variables'

/** Where tokens are made, listed, limited and revoked: the API, or the config dir's file. */
export interface Backend {
  create(input: {
    label: string
    scope: Scope
    limits?: QuotaLimits
    models?: string[]
  }): Promise<CreatedToken>
  list(): Promise<TokenInfo[]>
  setLimits(id: string, limits: QuotaLimits | null): Promise<TokenInfo | undefined>
  revoke(id: string): Promise<boolean>
}

/** Thrown by the API backend when the API wants credentials we do not have: use the file. */
export class NeedsCredentials extends Error {}

export function apiBackend(ctx: CliContext): Backend {
  const check = <T>(res: ApiResponse<T>, ok: number): T => {
    if (res.status === ok) return res.body
    if (errorCode(res) === 'auth.required' && !cliVar(ctx.env, 'SVC_TOKEN')) throw new NeedsCredentials()
    throw apiError(res)
  }
  return {
    async create(input) {
      const body = JSON.stringify(input)
      return check(await callApi<CreatedToken>(ctx, '/api/auth/tokens', { method: 'POST', body }), 201)
    },
    async list() {
      return check(await callApi<{ tokens: TokenInfo[] }>(ctx, '/api/auth/tokens'), 200).tokens
    },
    async setLimits(id, limits) {
      const body = JSON.stringify({ limits })
      const res = await callApi<TokenInfo>(ctx, `/api/auth/tokens/${id}`, { method: 'PATCH', body })
      if (res.status === 404 && errorCode(res) === 'token.not_found') return undefined
      return check(res, 200)
    },
    async revoke(id) {
      const res = await callApi(ctx, `/api/auth/tokens/${id}`, { method: 'DELETE' })
      if (res.status === 404 && errorCode(res) === 'token.not_found') return false
      check(res, 200)
      return true
    },
  }
}

/**
 * A token made while the API runs with auth off works nowhere yet: nothing checks it. Says so on
 * stderr (stdout stays the token alone), with how to turn auth on. Silent when the API does not
 * answer (the token went to the config dir; the API's mode is not known here).
 */
export async function hintWhenAuthIsOff(ctx: CliContext): Promise<void> {
  const res = await callApi<{ enabled?: boolean }>(ctx, '/api/auth/status').catch(() => undefined)
  if (res?.status !== 200 || res.body?.enabled !== false) return
  ctx.stderr.write(
    `auth is off at ${ctx.apiUrl}: nothing checks tokens until you turn it on (svc install --auth=basic, or SVC_AUTH_ENABLED=1 for the API; see docs/auth.md)\n`,
  )
}
